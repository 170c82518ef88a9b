"""``python -m goldnoise`` is the ``goldnoise`` command."""

import sys

from goldnoise._cli import main

if __name__ == "__main__":
    sys.exit(main())
