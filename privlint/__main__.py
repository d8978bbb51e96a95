import sys

from privlint.cli import main

sys.exit(main())
