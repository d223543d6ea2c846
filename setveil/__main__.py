"""The ``setveil`` command and ``python -m setveil``.

The command's modules (click, numpy, the core) take about half a second to import. A Ctrl-C
then must end as one during a command does, in one line and status 130: not in a traceback, and
not lost either, as a KeyboardInterrupt raised inside an extension module's initialization or an
import lock's callback is (printed as "Exception ignored", the command then ran to its end). So
SIGINT is held back while they load and taken once they have.
"""

import signal
import sys


def main() -> None:
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            from setveil.core.cli import main as run_command
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a Ctrl-C held back is raised here
    except KeyboardInterrupt:
        sys.stderr.write("setveil: aborted\n")  # the line core.cli.main writes for a Ctrl-C
        sys.exit(130)
    run_command()


if __name__ == "__main__":
    main()
