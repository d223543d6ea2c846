"""The ``setveil`` command and ``python -m setveil``.

The command's modules (click, numpy, scipy, the plugins) take about half a second to import.
They are imported here, inside ``main``, so that a Ctrl-C in that time ends as one during a
command does: one line and status 130, not a traceback.
"""

import sys


def main() -> None:
    try:
        from setveil.core.cli import main as run_command
    except KeyboardInterrupt:
        sys.stderr.write("setveil: aborted\n")  # the line core.cli.main writes for a Ctrl-C
        sys.exit(130)
    run_command()


if __name__ == "__main__":
    main()
