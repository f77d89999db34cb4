"""The bash completion scripts the programs print with --bash-completion (and
the Debian packages install): sourced into a real bash, asked what follows a
partly typed command line, as bash asks when the user presses Tab."""
import os
import subprocess

import pytest

from osftest import adapter_bin, build_dir, proxy_bin


def local_bin():
    return os.environ.get("SANDBOX_LOCAL_BIN") or os.path.join(build_dir(), "adapter", "sandbox-local")


def complete(binary, program, words):
    """COMPREPLY for `words` (the last one being typed), one per line."""
    script = subprocess.run([binary, "--bash-completion"], capture_output=True, text=True,
                            timeout=60, check=True).stdout
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    driver = (script + f"\nCOMP_WORDS=({quoted})\nCOMP_CWORD={len(words) - 1}\n"
              "fn=$(complete -p " + program + " | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')\n"
              "$fn\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", driver], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    return [line for line in out.splitlines() if line]


@pytest.mark.parametrize("words, expected", [
    (["sandbox-kubernetes", ""], {"create", "exec", "copy", "snapshot", "destroy", "list",
                                  "egress-log", "extend", "gc", "suspend", "resume", "allow", "revoke",
                                  "doctor", "--help",
                                  "-h", "--version", "-n", "--namespace", "--context", "--kubeconfig"}),
    (["sandbox-kubernetes", "cr"], {"create"}),
    (["sandbox-kubernetes", "create", "--d"], {"--dry-run"}),
    (["sandbox-kubernetes", "list", "--"], {"--help", "--json", "--output", "--selector"}),
    (["sandbox-kubernetes", "revoke", "--"], {"--help", "--mcp"}),
])
def test_adapter_completes_subcommands_and_their_options(words, expected):
    assert set(complete(adapter_bin(), "sandbox-kubernetes", words)) == expected


@pytest.mark.parametrize("words, expected", [
    (["sandbox-local", ""], {"create", "exec", "copy", "snapshot", "destroy", "list", "egress-log",
                             "extend", "gc", "suspend", "resume", "allow", "revoke", "--help", "-h",
                             "--version"}),
    (["sandbox-local", "allow", "--"], {"--help", "--mcp"}),
    (["sandbox-local", "create", "--d"], {"--dry-run"}),
    (["sandbox-local", "exec", "--t"], {"--timeout", "--tty"}),
    (["sandbox-local", "list", "--"], {"--help", "--json", "--output", "--selector"}),
])
def test_local_completes_its_own_subcommands(words, expected):
    assert set(complete(local_bin(), "sandbox-local", words)) == expected


@pytest.mark.parametrize("words, expected", [
    (["egress-proxy", "--sp"], {"--spec"}),
    (["egress-proxy", "--log-"], {"--log-stdout", "--log-level", "--log-every-refusal"}),
    (["egress-proxy", "log", "-"], {"--help", "-h", "--state-dir", "--follow", "-f", "--raw"}),
    # after an option that takes a value: nothing of ours, bash completes file names
    (["egress-proxy", "--spec", ""], set()),
    # a flag takes no value: the next word is an option again
    (["egress-proxy", "--log-stdout", "--th"], {"--threads"}),
])
def test_proxy_completes_options_and_leaves_values_to_files(words, expected):
    assert set(complete(proxy_bin(), "egress-proxy", words)) == expected


def test_hidden_flag_is_not_offered():
    assert "--bash-completion" not in complete(proxy_bin(), "egress-proxy", ["egress-proxy", "--"])
