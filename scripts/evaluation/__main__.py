"""python -m scripts.evaluation: see cli.py."""

import sys

# Logging is set up before the agent is imported: importing it imports Home Assistant's
# camera helpers, which log a traceback where libturbojpeg is missing. That note is quieted
# (testing.hass_runner.QUIET_LOGGERS) only once logging is configured.
from testing.hass_runner import configure_logging

configure_logging(verbose=bool({"-v", "--verbose"} & set(sys.argv[1:])))

from .cli import main  # noqa: E402

sys.exit(main())
