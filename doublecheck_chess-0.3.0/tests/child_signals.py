"""Children that the tests interrupt with Ctrl-C (SIGINT).

A non-interactive shell starts its background jobs with SIGINT ignored, and
an ignored signal stays ignored in every program started below it; Python
then installs no KeyboardInterrupt handler. A test that sends SIGINT to a
child passes ``preexec_fn=default_ctrl_c`` so that the child reacts as it
does under a user's terminal, however the test run itself was started.
"""

import signal


def default_ctrl_c() -> None:
    """In the child, before it starts its program: SIGINT back to its default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
