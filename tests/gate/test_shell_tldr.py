"""Real commands no one on the team wrote (tldr-pages, ``bench/corpora/tldr.txt``): every one the
shell policy denies was reviewed as deny-class (SECURITY.md §4 or a write the path policy
refuses), so a new false deny fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.gate import PathPolicy, ShellPolicy

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "tldr.txt"

# Reviewed: disks formatted or wiped, the machine stopped, persistence (cron, rc files, units),
# secrets read or written, writes outside the workspace, and `a|reboot|b` pipelines bash runs.
REVIEWED_DENIES = frozenset({
    'crontab -e',
    'dd bs=4194304 conv=fsync if=/dev/source_drive of=/dev/dest_drive',
    'doppler secrets download --format=env --no-file > path/to/.env',
    'linode-cli linodes boot|reboot|shutdown linode_id',
    'nxc ssh 192.186.178.2 -u path/to/usernames.txt -p password --key-file path/to/id_rsa',
    'starship init bash >> ~/.bashrc',
    'cryptsetup luksFormat /dev/sdXY',
    'genfstab -U /mnt >> /mnt/etc/fstab',
    'halt --reboot',
    'sudo mkfs.bcachefs /dev/sdXY',
    'sudo mkfs.cramfs -n volume_name path/to/directory /dev/sdXY',
    'sudo mkfs.ext4 /dev/sdXY',
    'sudo mkfs.fat -f 4 /dev/sdXY',
    'sudo mkfs.ntfs -U uuid /dev/sdXY',
    'echo "declined_login_message" > /etc/nologin.txt',
    'poweroff -f',
    'shutdown -h now',
    "sudo mkdir -p /usr/ports && sudo rsync -av rsync://slackbuilds.org "
    "/slackbuilds/$(awk '{print $2}' /etc/slackware-version)/ /usr/ports/",
    'systemctl halt -f --no-wall',
    'systemctl reboot --firmware-setup',
    'sudo wipefs -a -f /dev/sdX',
    'systemctl enable znc --now',
    'sudo -e /etc/fstab',  # sudoedit writes the file it edits, outside the workspace
})  # fmt: skip


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    workspace = tmp_path_factory.mktemp("tldr")
    (workspace / "README.md").write_text("hello\n")
    policy = ShellPolicy(PathPolicy(str(workspace)))
    lines = CORPUS.read_text().splitlines()
    commands = [line for line in lines if line and not line.startswith("# tldr-pages")]
    return {command: policy.classify(command).decision for command in commands}


def test_the_corpus_is_a_few_thousand_real_commands(verdicts: dict[str, str]) -> None:
    assert 2000 <= len(verdicts) <= 6000
    assert CORPUS.read_text().startswith("# tldr-pages ")


def test_only_reviewed_commands_are_denied(verdicts: dict[str, str]) -> None:
    denied = {command for command, decision in verdicts.items() if decision == "deny"}
    assert denied - REVIEWED_DENIES == set(), "new denies: review them, fix the false ones"
    assert REVIEWED_DENIES - denied == set(), "no longer denied: take them off the list"
