"""The DeepOps group_vars the bundle writes (roles/deepops_cluster/templates/all.yml.j2) hold model
text only as quoted data: whatever the text, the file parses back to exactly that text, and to no
other key. Validation refuses such text first; this is the wall behind it."""
from __future__ import annotations

import json

import jinja2
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from project_paths import COLLECTION

TEMPLATE = (COLLECTION / "roles" / "deepops_cluster" / "templates" / "all.yml.j2").read_text()
HOSTILE = st.text(alphabet=st.sampled_from(list("ab:#-{}[]&*!|>'\"%@`,\n\r\t\\ ") + ["\u2028", "\u202e", "\x00"]),
                  min_size=1, max_size=30)


def render(pod_name: str, user: str, group: str, home: str) -> str:
    environment = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    environment.filters["to_json"] = json.dumps
    environment.filters["to_nice_yaml"] = lambda value, **_: yaml.safe_dump(value, default_flow_style=False)
    plan = {"user": {"username": user, "name": user, "uid": 2000, "group": group, "home": home},
            "group": {"name": group, "gid": 2000}}
    return environment.from_string(TEMPLATE).render(pod={"name": pod_name}, deepops_cluster_plan=plan,
                                                    deepops_cluster_config_vars={})


@settings(max_examples=200, deadline=None)
@given(pod_name=HOSTILE, user=HOSTILE, group=HOSTILE, home=HOSTILE)
def test_hostile_text_parses_back_as_the_same_text(pod_name, user, group, home):
    data = yaml.safe_load(render(pod_name, user, group, home))
    assert set(data) == {"groups_to_create", "users", "ssh_server_password_login"}
    assert data["groups_to_create"] == [{"name": group, "gid": 2000}]
    assert data["users"] == [{"username": user, "name": user, "uid": 2000, "group": group, "home": home}]
    assert data["ssh_server_password_login"] is False
