"""The commit-msg hook scripts/setup.sh installs (.githooks): a subject over 72 characters or a
message without a body is warned about; the commit is never refused."""
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HOOK = REPO / '.githooks' / 'commit-msg'


def run(tmp_path, text):
    message = tmp_path / 'COMMIT_EDITMSG'
    message.write_text(text)
    return subprocess.run([str(HOOK), str(message)], capture_output=True, text=True, check=False)


def test_a_long_subject_and_a_missing_body_are_warned_about(tmp_path):
    subject = 'Refuse the venv method on A3 nodes whose wheels are built for another chip'
    result = run(tmp_path, subject + '\n')
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        'commit-msg: the subject has %d characters; keep it to 72 or fewer:' % len(subject), '  ' + subject,
        'commit-msg: no body after a blank line; say why, what was measured and what was run']


def test_a_message_as_the_rules_ask_passes_silently(tmp_path):
    result = run(tmp_path, 'Refuse the venv method on A3\n\nThe wheels are A2 builds; ran the unit tests.\n'
                           '# Please enter the commit message\n')
    assert (result.returncode, result.stderr) == (0, '')


def test_setup_installs_the_hook():
    assert 'config core.hooksPath .githooks' in (REPO / 'scripts' / 'setup.sh').read_text()
