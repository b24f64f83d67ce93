"""Property-based corpus growth: every address, name, URL and path field of the sample is mutated with
generated bad (and random) values. Each mutation is refused with file:line, or it is provably valid:
an oracle written here, independently of the rules, says the value is acceptable. No mutation
raises.

The oracles are deliberately simple and strict: an address is a host address of its network that
no other interface, gateway or next hop uses; a URL uses TLS (or names a local file) and has a
host; a path of the model is normalised, stays inside the inventory and, for a mount point, out of
the system's directories; a name is made of letters, digits and . _ - : / only. A value the
validator accepts that its oracle does not is a bug of the validator (or of the oracle, which then
says so). Examples per category: AIPOD_HYPOTHESIS_FIELD_EXAMPLES (default 120).
"""
from __future__ import annotations

import copy
import dataclasses
import ipaddress
import os
import posixpath
import re
import time
from urllib.parse import urlsplit

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from model_walk import leaves
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, _check_templating, load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
EXAMPLES = int(os.environ.get("AIPOD_HYPOTHESIS_FIELD_EXAMPLES", "120"))
# A validation that takes long is a fault (a pattern gone super-linear, say), but Hypothesis' deadline
# is wall time, which a loaded machine stretches (an example took 4.9 s beside CI's lab lane, 0.2 s
# alone). The bound is the CPU time of the validation itself (judge, judge_on).
VALIDATION_CPU_SECONDS = 3.0
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def validated(site, check_files: bool) -> list:
    """check_model's findings, within VALIDATION_CPU_SECONDS of this process's CPU time."""
    started = time.process_time()
    findings = check_model(site, check_files=check_files)
    spent = time.process_time() - started
    assert spent < VALIDATION_CPU_SECONDS, f"the validation took {spent:.2f} CPU s (bound {VALIDATION_CPU_SECONDS})"
    return findings


# ---------------------------------------------------------------------------- the sample's fields
def model_leaves():
    for key in GLOBAL_KEYS:
        yield from leaves(SITE.model[key], (key,))
    for host, body in SITE.model["hosts"].items():
        for key in HOST_KEYS:
            if key in body:
                yield from leaves(body[key], ("hosts", host, key))


def field_name(path):
    """The key a leaf is written under (a list item: its list's key)."""
    return path[-2] if isinstance(path[-1], int) else path[-1]


HOST_ADDRESS_KEYS = {"address", "mgmt_address"}
NAME_KEYS = {"name", "cluster_name", "svm", "flexgroup", "network", "node", "ontap_node", "host", "nic", "peer", "port",
             "ports", "members", "aggregates", "backend", "export_policy", "root_export_policy", "snapshot_policy",
             "namespace", "username", "role", "admin_user", "group"}
LEAVES = [(path, value) for path, value in model_leaves() if isinstance(value, str)]
HOST_ADDRESSES = [p for p, _v in LEAVES if field_name(p) in HOST_ADDRESS_KEYS or p[-2] == "first_address"]
GATEWAYS = [p for p, _v in LEAVES if field_name(p) == "gateway"]
SUBNETS = [p for p, _v in LEAVES if field_name(p) == "subnet"]
NAMES = [p for p, _v in LEAVES if field_name(p) in NAME_KEYS]
URLS = [("kubernetes", "deepops", "release_url"), ("trident", "install", "chart_repo"), ("trident", "install", "manifests_url"),
        ("trident", "install", "image_registry")]
PATHS = [p for p, _v in LEAVES if field_name(p) in ("ca_file", "junction_path") or p[:2] == ("compute", "mounts") and p[-1] == "path"]
KUBECONFIG = ("kubernetes", "existing", "kubeconfig")
PATHS.append(KUBECONFIG)


def get(model, path):
    for key in path:
        model = model[key]
    return model


def mutated(path, value):
    model = copy.deepcopy(SITE.model)
    if path == KUBECONFIG:
        model["kubernetes"] = {"deployment": "existing", "existing": {"kubeconfig": value}, "common_user": model["kubernetes"]["common_user"]}
    else:
        get(model, path[:-1])[path[-1]] = value
    return model


def judge(path, value, oracle, check_files=False):
    """Validate the sample with path set to value: refused with file:line, or valid by the oracle."""
    note(f"{path} = {value!r}")
    model = mutated(path, value)
    site = dataclasses.replace(SITE, model=model, findings=[])
    _check_templating(site)  # what loading finds, as validate_site() does
    findings = site.findings + validated(site, check_files)
    errors = [f for f in findings if f.severity == "error"]
    for finding in findings:
        assert finding.location.file and finding.location.line is not None, f"not located: {finding}"
        assert finding.message and finding.hint is not None, finding
    if not errors:
        why = oracle(model, path, value)
        assert why is None, f"{path} = {value!r} was accepted, but {why}"
    return errors


# ---------------------------------------------------------------------------- oracles
def _networks(model):
    return {n["name"]: n for n in model["networks"] if isinstance(n, dict) and isinstance(n.get("name"), str)}


def _subnet(network):
    try:
        return ipaddress.IPv4Network(network.get("subnet"), strict=True)
    except (ValueError, TypeError):
        return None


def _routers(model):
    found = set()
    for network in _networks(model).values():
        for candidate in [network.get("gateway")] + [r.get("via") for r in network.get("routes") or [] if isinstance(r, dict)]:
            if isinstance(candidate, str):
                found.add(candidate)
    return found


def _host_addresses(model, skip=()):
    """Every interface address of the model but those at the paths in skip (LIF ranges expanded)."""
    return [value for path, value in _address_leaves(model) if path not in skip]


def _address_leaves(model):
    for path in HOST_ADDRESSES:
        try:
            value = get(model, path)
        except (KeyError, IndexError, TypeError):
            continue
        if path[-2] == "first_address":
            for offset in range(_lif_count(path)):
                try:
                    yield path, str(ipaddress.IPv4Address(value) + offset)
                except (ValueError, TypeError, ipaddress.AddressValueError):
                    break
        elif isinstance(value, str):
            yield path, value


def _lif_count(path):
    """LIFs the sample derives from one first_address: per_port x the ports of that network's domains."""
    network = path[-1]
    return len([lif for lif in m.data_lifs(SITE.model) if lif["network"] == network])


def _network_of(model, path, address):
    """The network an address path belongs to, as the model says it (or, for management, where it lies)."""
    if path[-2] == "first_address":
        return _networks(model).get(path[-1])
    parent = get(model, path[:-1])
    if isinstance(parent.get("network"), str):
        return _networks(model).get(parent["network"])
    if path[-2] == "mgmt_lif":
        return _networks(model).get("inband")
    for purpose in ("mgmt", "inband"):
        for network in _networks(model).values():
            subnet = _subnet(network)
            if network.get("purpose") == purpose and subnet and address in subnet:
                return network
    return None


def address_oracle(model, path, value):
    if not isinstance(value, str):
        return "it is not a string"
    try:
        first = ipaddress.IPv4Address(value)
    except ValueError:
        return "it is not an IPv4 address"
    count = _lif_count(path) if path[-2] == "first_address" else 1
    network = _network_of(model, path, first)
    subnet = _subnet(network) if network else None
    if subnet is None:
        return "it lies in no network it may use"
    others = _host_addresses(model, skip={path})
    routers = _routers(model)
    for offset in range(count):
        if int(first) + offset >= 2 ** 32:
            return "its range runs past 255.255.255.255"
        address = first + offset
        if address not in subnet or address in (subnet.network_address, subnet.broadcast_address):
            return f"{address} is not a host address of {subnet}"
        if str(address) in routers:
            return f"{address} is a gateway or next hop"
        if str(address) in others:
            return f"{address} is used twice"
    return None


def gateway_oracle(model, path, value):
    network = get(model, path[:-1])
    subnet = _subnet(network)
    try:
        address = ipaddress.IPv4Address(value)
    except (ValueError, TypeError):
        return "it is not an IPv4 address"
    if subnet is None or address not in subnet or address in (subnet.network_address, subnet.broadcast_address):
        return f"it is not a host address of {subnet}"
    if value in _host_addresses(model):
        return "an interface uses it"
    return None


def subnet_oracle(model, path, value):
    network = get(model, path[:-1])
    try:
        subnet = ipaddress.IPv4Network(value, strict=True)
    except (ValueError, TypeError):
        return "it is not a network address"
    for other in _networks(model).values():
        if other is not network and _subnet(other) and subnet.overlaps(_subnet(other)):
            return f"it overlaps {other['name']}"
    for kubespray in ("10.233.0.0/18", "10.233.64.0/18"):
        if subnet.overlaps(ipaddress.IPv4Network(kubespray)):
            return f"it overlaps Kubespray's {kubespray}"
    old = ipaddress.IPv4Network(get(SITE.model, path))
    inside = [a for _p, a in _address_leaves(model) if ipaddress.IPv4Address(a) in old] + [
        g for g in [network.get("gateway")] if isinstance(g, str)]
    for text in inside:
        address = ipaddress.IPv4Address(text)
        if address not in subnet or (subnet.prefixlen < 31 and address in (subnet.network_address, subnet.broadcast_address)):
            return f"{address} of the network is no longer a host address of it"
    return None


SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,254}$")


def name_oracle(model, path, value):
    if not isinstance(value, str) or not SAFE_NAME.match(value):
        return "it holds characters no name of the pod may hold (a device's CLI or a file name would carry them)"
    return None


URL_SCHEMES = {"release_url": ("https", "file"), "chart_repo": ("https", "oci", "file"), "manifests_url": ("https", "file")}
REGISTRY = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[a-z0-9._-]+)*$")  # host[:port]/path; no scheme, no space


def url_oracle(model, path, value):
    if not isinstance(value, str):
        return "it is not a string"
    if path[-1] == "image_registry":
        return None if REGISTRY.match(value) else "it is not host[:port]/path"
    if re.search(r"[\s\x00-\x1f\x7f]", value):
        return "it holds white space or control characters"
    if not re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*", value):
        return "it holds a character a URL must percent-encode"
    parts = urlsplit(value)
    if parts.scheme not in URL_SCHEMES[path[-1]]:
        return f"scheme {parts.scheme!r} is not one of {URL_SCHEMES[path[-1]]}"
    if parts.scheme == "file":
        return None if parts.path.startswith("/") and not parts.netloc else "a file:// URL names an absolute path"
    return None if parts.hostname else "it names no host"


SYSTEM_DIRECTORIES = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/root", "/run",
                      "/sbin", "/sys", "/usr", "/var")


def path_oracle(model, path, value):
    if not isinstance(value, str) or "\x00" in value or not value:
        return "it is not a path"
    if path[-1] in ("ca_file", "kubeconfig"):
        if os.path.isabs(value):
            return "it is absolute"
        target = os.path.normpath(os.path.join(str(SAMPLE), value))
        if not target.startswith(str(SAMPLE) + os.sep) or os.path.realpath(target) != target:
            return "it leads outside the inventory"
        if path[-1] == "ca_file" and os.path.realpath(target) != str(SAMPLE / "files" / "ontap-ca.pem"):
            return "it is not the sample's CA bundle"
        return None
    if not re.match(r"^/[A-Za-z0-9_./-]*$", value) or posixpath.normpath(value) != value or value == "/" or "//" in value:
        return "it is not a normalised absolute path below /"
    if path[-1] == "path" and any(value == d or value.startswith(d + "/") for d in SYSTEM_DIRECTORIES):
        return "it mounts over a system directory"
    return None


# ---------------------------------------------------------------------------- generated values
def other_values(paths):
    return [get(SITE.model, p) for p in paths]


junk = st.one_of(st.none(), st.booleans(), st.integers(min_value=-3, max_value=2 ** 33), st.lists(st.text(max_size=3), max_size=2),
                 st.text(max_size=20))
bad_addresses = st.sampled_from(["", "10.61.218", "10.61.218.256", "010.61.218.20", " 10.61.218.20", "10.61.218.20/24", "::1",
                                 "10.61.218.20\n", "localhost", "0.0.0.0", "255.255.255.255", "10.61.218.0", "10.61.218.255",
                                 "10.61.218.1", "10.61.219.0", "10.61.219.255", "10.61.219.1", "100.127.111.0", "100.127.111.255",
                                 "100.127.112.255", "100.127.111.250", "10.233.0.5", "127.0.0.1"])
addresses = st.one_of(bad_addresses, st.sampled_from(other_values(HOST_ADDRESSES) + other_values(GATEWAYS)),
                      st.ip_addresses(v=4).map(str),
                      st.integers(min_value=0, max_value=255).map(lambda n: f"10.61.218.{n}"),
                      st.integers(min_value=0, max_value=255).map(lambda n: f"100.127.111.{n}"), junk)
subnets = st.one_of(st.sampled_from(["10.61.218.0/24", "10.61.218.0/25", "10.61.218.1/24", "10.61.0.0/16", "0.0.0.0/0",
                                     "10.233.0.0/18", "100.127.0.0/16", "100.127.111.0/23", "10.61.218.0/33", "10.61.218.0",
                                     "100.127.111.128/25", "172.16.0.0/12"]),
                    st.builds(lambda a, n: f"{a}/{n}", st.ip_addresses(v=4), st.integers(min_value=0, max_value=32)), junk)
names = st.one_of(st.sampled_from(["", " ", "a b", "a\nb", "x;reload", "$(id)", "`id`", "{{ x }}", "-x", "x" * 300, "名前",
                                   "a,b", "a'b", 'a"b', "a\tb", "../x", "x\x00y"]),
                  st.sampled_from(other_values(NAMES)), st.text(max_size=24), junk)
url_hosts = st.sampled_from(["mirror.example.com", "", "user:pw@mirror.example.com", "mirror.example.com:8443", "[::1]", "a b"])
urls = st.one_of(st.sampled_from(["", "http://mirror.example.com/x.tgz", "HTTP://mirror.example.com/x", "ftp://mirror.example.com/x",
                                  "https://", "https:///x", "file://relative/x.tgz", "file:///srv/deepops.tgz", "oci://mirror/charts",
                                  "javascript:alert(1)", "https://mirror.example.com/a b", "https://mirror.example.com/x\n",
                                  "mirror.example.com:5000/trident", "http://mirror.example.com:5000/trident", "Mirror.example.com/x",
                                  "https://mirror.example.com/trident/"]),
                 st.builds(lambda scheme, host, rest: f"{scheme}://{host}/{rest}",
                           st.sampled_from(["http", "https", "HTTPS", "ftp", "file", "oci", "gopher", "", "data"]), url_hosts,
                           st.text(alphabet="abc/._-%?#@ ", max_size=12)), junk)
paths = st.one_of(st.sampled_from(["", "/", "files/ontap-ca.pem", "./files/ontap-ca.pem", "files/../files/ontap-ca.pem",
                                   "../sample/files/ontap-ca.pem", "files/../../lab/hosts.yml", "/etc/passwd", "~/.kube/config",
                                   "files", "hosts.yml", "files/ontap-ca.pem\x00x", "x" * 5000, "/data", "/data/", "/data/../etc",
                                   "//data", "/etc", "/etc/x", "/usr/local/data", "/var/lib/x", "/mnt/data/./x", "/home_vol",
                                   "/proc", "/mnt/new", "/raid/datasets", "/a b", "/dáta"]),
                  st.lists(st.sampled_from(["..", ".", "files", "etc", "", "ontap-ca.pem", "data", "mnt"]), min_size=1, max_size=4)
                  .map("/".join), st.lists(st.sampled_from(["..", ".", "files", "etc", "", "data", "mnt"]), min_size=1, max_size=4)
                  .map(lambda parts: "/" + "/".join(parts)), junk)


# ---------------------------------------------------------------------------- the properties
@SETTINGS
@given(path=st.sampled_from(HOST_ADDRESSES), value=addresses)
def test_every_host_address_is_refused_or_provably_valid(path, value):
    judge(path, value, address_oracle)


@SETTINGS
@given(path=st.sampled_from(GATEWAYS + SUBNETS), value=st.one_of(addresses, subnets))
def test_every_gateway_and_subnet_is_refused_or_provably_valid(path, value):
    judge(path, value, gateway_oracle if path[-1] == "gateway" else subnet_oracle)


@SETTINGS
@given(path=st.sampled_from(NAMES), value=names)
def test_every_name_is_refused_or_provably_valid(path, value):
    judge(path, value, name_oracle)


@SETTINGS
@given(path=st.sampled_from(URLS), value=urls)
def test_every_artifact_url_is_refused_or_provably_valid(path, value):
    judge(path, value, url_oracle)


@SETTINGS
@given(path=st.sampled_from(PATHS), value=paths)
def test_every_path_is_refused_or_provably_valid(path, value):
    judge(path, value, path_oracle, check_files=True)


# ---------------------------------------------------------------------------- fields the sample leaves empty
# Export clients, a route's next hop and destination, and explicit data LIFs: the sample has none (or
# only network names), so each is mutated on a sample that has one. The base keeps the sample valid.
CLIENT = ("ontap", "svms", 0, "export_policies", 0, "rules", 0, "clients", 0)
STORAGE_A = next(index for index, n in enumerate(SITE.model["networks"]) if n["name"] == "storage-a")
ROUTE = ("networks", STORAGE_A, "routes", 0)


def with_route(model):
    model["networks"][STORAGE_A]["routes"] = [{"to": "100.127.0.0/16", "via": "100.127.111.250", "metric": 100}]
    return model


def with_explicit_lif(model):
    """The sample's derived LIFs written out, the first one's address to be mutated."""
    svm = model["ontap"]["svms"][0]
    svm["data_lifs"] = {"explicit": [{"name": lif["name"], "node": lif["node"], "port": lif["port"], "address": lif["address"]}
                                     for lif in m.data_lifs(SITE.model) if lif["svm"] == svm["name"]]}
    return model


EXPLICIT_LIF = ("ontap", "svms", 0, "data_lifs", "explicit", 0, "address")


def judge_on(base, path, value, oracle):
    model = base(copy.deepcopy(SITE.model))
    assert not [f for f in check_model(dataclasses.replace(SITE, model=model, findings=[]), check_files=False)
                if f.severity == "error"], "the base of the mutation is valid"
    get(model, path[:-1])[path[-1]] = value
    note(f"{path} = {value!r}")
    site = dataclasses.replace(SITE, model=model, findings=[])
    findings = validated(site, False)
    for finding in findings:
        assert finding.location.file and finding.location.line is not None, f"not located: {finding}"
    if not [f for f in findings if f.severity == "error"]:
        why = oracle(model, path, value)
        assert why is None, f"{path} = {value!r} was accepted, but {why}"


def client_oracle(model, path, value):
    if not isinstance(value, str):
        return "it is not a string"
    if value in _networks(model):
        return None
    try:
        clients = ipaddress.IPv4Network(value, strict=True)
    except ValueError:
        return "it is neither a network of the model nor a CIDR"
    if not any(_subnet(n) and clients.subnet_of(_subnet(n)) for n in _networks(model).values()):
        return "it lies inside no declared network: the export would reach hosts the model does not know"
    return None


def route_oracle(model, path, value):
    network = get(model, ROUTE[:2])
    subnet = _subnet(network)
    if path[-1] == "to":
        try:
            ipaddress.IPv4Network(value, strict=True)
        except (ValueError, TypeError):
            return "it is not a network address"
        return None
    try:
        address = ipaddress.IPv4Address(value)
    except (ValueError, TypeError):
        return "it is not an IPv4 address"
    if address not in subnet or address in (subnet.network_address, subnet.broadcast_address):
        return f"the next hop is not a host address of {subnet}: the NIC cannot reach it"
    if value in _host_addresses(model) or value in [lif["address"] for lif in m.data_lifs(model)]:
        return "an interface uses it"
    return None


def explicit_lif_oracle(model, path, value):
    try:
        address = ipaddress.IPv4Address(value)
    except (ValueError, TypeError):
        return "it is not an IPv4 address"
    lif = get(model, path[:-1])
    network = next((lif_["network"] for lif_ in m.data_lifs(SITE.model) if lif_["name"] == lif["name"]), None)
    subnet = _subnet(_networks(model)[network])
    if address not in subnet or address in (subnet.network_address, subnet.broadcast_address):
        return f"it is not a host address of {subnet}"
    # The sample's first_address ranges are gone from this model, so _host_addresses skips them.
    others = [other["address"] for other in get(model, path[:-2]) if other is not lif] + _host_addresses(model)
    if value in others or value in _routers(model):
        return "it is used twice, or is a gateway"
    return None


clients = st.one_of(st.sampled_from(["storage-a", "storage-b", "inband", "mgmt", "0.0.0.0/0", "100.127.111.0/24", "100.127.111.0/25",
                                     "100.127.111.7/32", "100.127.111.7", "100.127.0.0/16", "10.0.0.0/8", "100.127.111.1/24",
                                     "all", "*", "storage-c", "-storage-a", "100.127.111.0/33", ""]),
                    st.builds(lambda a, n: f"{a}/{n}", st.ip_addresses(v=4), st.integers(min_value=0, max_value=32)), junk)


@SETTINGS
@given(value=clients)
def test_every_export_client_is_refused_or_provably_valid(value):
    judge_on(lambda model: model, CLIENT, value, client_oracle)


@SETTINGS
@given(field=st.sampled_from(["to", "via"]), value=st.one_of(addresses, subnets))
def test_every_route_field_is_refused_or_provably_valid(field, value):
    judge_on(with_route, ROUTE + (field,), value, route_oracle)


@SETTINGS
@given(value=addresses)
def test_every_explicit_data_lif_address_is_refused_or_provably_valid(value):
    judge_on(with_explicit_lif, EXPLICIT_LIF, value, explicit_lif_oracle)


def test_the_fields_of_every_category_are_found():
    assert len(HOST_ADDRESSES) == 30 and len(GATEWAYS) == 2 and len(SUBNETS) == 4
    assert len(NAMES) > 150 and len(PATHS) == 6
    assert {("ontap", "ca_file"), ("compute", "mounts", 0, "path")} <= set(PATHS)
