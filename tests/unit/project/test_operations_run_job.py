"""molecule/operations/files/run_job.py: each ansible-runner job gets exactly its own extra vars."""
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location('run_job', REPO / 'molecule/operations/files/run_job.py')
RUN_JOB = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(RUN_JOB)


def test_a_job_does_not_inherit_the_extra_vars_an_earlier_job_left(tmp_path, monkeypatch, capsys):
    private = tmp_path / 'runner'
    (private / 'env').mkdir(parents=True)
    # What an earlier (interrupted) job left: ansible-runner would pass it with -e @env/extravars.
    (private / 'env' / 'extravars').write_text(json.dumps({'ascend_stack_release': '9.9.9'}))
    seen = {}

    def fake_run(**kwargs):
        seen['leftover'] = (private / 'env' / 'extravars').exists()
        seen['extravars'] = kwargs['extravars']

    monkeypatch.setattr(RUN_JOB.ansible_runner, 'run', fake_run)
    monkeypatch.setattr(sys, 'argv', ['run_job.py', '--private-data-dir', str(private), '--project-dir', str(REPO),
                                      '--inventory', 'hosts', '--playbook', 'site.yml', '--ident', 'site'])
    RUN_JOB.main()
    assert seen == {'leftover': False, 'extravars': {}}
    assert json.loads(capsys.readouterr().out.splitlines()[-1])['events'] == 0
