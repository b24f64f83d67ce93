"""The lab's own CA and the endpoint's certificate, made at first start under .lab/ontap/pki/.

The CA is created once and kept (clients trust it through the inventory's ``ontap.ca_file``);
the server certificate is re-issued whenever the addresses it must name change.
"""
from __future__ import annotations

import datetime
import ipaddress
import json
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _write(path: str, data: bytes, private: bool = False) -> None:
    temporary = path + ".tmp"
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.chmod(temporary, 0o600 if private else 0o644)
    os.replace(temporary, path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def ensure_pki(directory: str, addresses: list[str], names: list[str]) -> dict[str, str]:
    """Paths of ca.pem, server.pem and server-key.pem, creating what is missing or stale."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    paths = {name: os.path.join(directory, f"{name}.pem") for name in ("ca", "ca-key", "server", "server-key")}
    now = datetime.datetime.now(datetime.UTC)
    if not (os.path.isfile(paths["ca"]) and os.path.isfile(paths["ca-key"])):
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "ONTAP AI pod lab"),
                             x509.NameAttribute(NameOID.COMMON_NAME, "ONTAP AI pod lab CA")])
        certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                       .public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(minutes=5))
                       .not_valid_after(now + datetime.timedelta(days=3650))
                       .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                       .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                    content_commitment=False, key_encipherment=False, data_encipherment=False,
                                                    key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
                       .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                       .sign(key, hashes.SHA256()))
        _write(paths["ca-key"], _key_pem(key), private=True)
        _write(paths["ca"], certificate.public_bytes(serialization.Encoding.PEM))
        for stale in ("server", "server-key"):
            if os.path.exists(paths[stale]):
                os.unlink(paths[stale])
    wanted = {"addresses": sorted(set(addresses)), "names": sorted(set(names))}
    stamp = os.path.join(directory, "server.json")
    current = None
    if os.path.isfile(stamp):
        with open(stamp, encoding="utf-8") as handle:
            current = json.load(handle)
    if current != wanted or not os.path.isfile(paths["server"]) or not os.path.isfile(paths["server-key"]):
        with open(paths["ca-key"], "rb") as handle:
            ca_key = serialization.load_pem_private_key(handle.read(), password=None)
        with open(paths["ca"], "rb") as handle:
            ca_cert = x509.load_pem_x509_certificate(handle.read())
        key = ec.generate_private_key(ec.SECP256R1())
        alt_names = [x509.IPAddress(ipaddress.ip_address(a)) for a in wanted["addresses"]]
        alt_names += [x509.DNSName(n) for n in wanted["names"]]
        certificate = (x509.CertificateBuilder()
                       .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, wanted["names"][0] if wanted["names"] else "ontap")]))
                       .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(minutes=5))
                       .not_valid_after(now + datetime.timedelta(days=825))
                       .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
                       .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                       .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                       .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
                       .sign(ca_key, hashes.SHA256()))
        _write(paths["server-key"], _key_pem(key), private=True)
        _write(paths["server"], certificate.public_bytes(serialization.Encoding.PEM))
        _write(stamp, json.dumps(wanted).encode())
    return paths
