"""Bad input against the running lab: every broken site model of the corpus is refused by the main
job before anything is touched. Afterwards the ONTAP endpoint's call log holds no call at all (so no
write), no switch's configuration changed and no DGX stand-in saw an SSH login."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from corpus import build_case, cases, load_case
from lab_support import converged_by_previous_test, hand_on_converged, lab, ontap_ctl, playbook, ssh_logins, switch_states
from project_paths import LAB

pytestmark = [pytest.mark.lab, pytest.mark.slow]
CASES = cases()


@pytest.fixture(scope="module", autouse=True)
def lab_before():
    proven = converged_by_previous_test()  # before the first test: kept for the next module if nothing is touched
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    return {"ontap": ontap_ctl("mark")["last"], "switches": switch_states(), "logins": ssh_logins(), "proven": proven}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("broken")
    # build_case puts each inventory at <root>/<case>/, where the lab inventory's ../../.lab points
    # at <root>/../.lab: give it the lab's state, so only the case's own edit is wrong.
    link = root.parent / ".lab"
    if not link.exists():
        link.symlink_to(LAB.parent.parent / ".lab")
    return root


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 40


@pytest.fixture(scope="module")
def refusals(workspace, lab_before, tmp_path_factory):
    """The site playbook on every case, on every core at once: the runs only read the lab (each is
    refused at validation), and each has a run-lock and a report directory of its own."""
    runs = tmp_path_factory.mktemp("runs")

    def run(case_path):
        inventory = build_case(case_path, workspace)
        return case_path, playbook("-i", str(inventory), "--vault-password-file", str(LAB / "vault-password.txt"),
                                   "playbooks/site.yml", env={"AIPOD_RUN_LOCK_DIR": str(runs / case_path.stem / "locks"),
                                                              "AIPOD_REPORT_ROOT": str(runs / case_path.stem / "reports")})

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(pool.map(run, CASES))


@pytest.mark.parametrize("case_path", CASES, ids=[c.stem for c in CASES])
def test_site_refuses_a_broken_model_before_any_change(case_path, refusals):
    case = load_case(case_path)
    result = refusals[case_path]
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"{case_path.stem} was accepted: {case['description']}"
    for expected in case["expect"]:
        assert expected["key"] in output, f"{case_path.stem}: the error does not name {expected['key']}:\n{output[-3000:]}"
        if "file" in expected:
            assert f"{expected['file']}:" in output, f"{case_path.stem}: the error does not name {expected['file']}"
    # The run stopped at validation (or, for a file that is not YAML, when Ansible read the
    # inventory): no play of another layer started.
    for layer in ("switches", "storage", "compute", "kubernetes", "trident", "verify"):
        assert f"==> layer {layer}:" not in output, f"{case_path.stem}: layer {layer} ran"


def test_nothing_in_the_lab_was_touched_by_the_whole_corpus(lab_before, refusals):
    counters = ontap_ctl("counters", "--since", str(lab_before["ontap"]))
    assert counters["total"] == 0 and counters["writes"] == 0, counters
    assert switch_states() == lab_before["switches"]
    assert ssh_logins() == lab_before["logins"]
    if lab_before["proven"]:  # nothing was touched: the lab is as converged as it was
        hand_on_converged(lab_before["proven"])
