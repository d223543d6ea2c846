"""What `setveil dev-broker` says of an address it cannot listen on."""

from __future__ import annotations

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.streams.broker import free_port


def test_an_address_that_is_not_this_machines_is_blamed_on_the_host_not_the_port():
    # Regression (QA as an operator): --host 192.0.2.1 (no address of this machine) was refused with
    # "Cannot assign requested address (another broker there? choose another --port)", and every
    # other port failed the same way
    port = free_port()
    result = CliRunner().invoke(cli, ["dev-broker", "--host", "192.0.2.1", "--port", str(port)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"setveil: error: cannot listen on 192.0.2.1:{port}: Cannot assign requested address "
                             "(no address of this machine: choose another --host)\n")
