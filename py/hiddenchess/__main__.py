import sys

from hiddenchess.cli import main

sys.exit(main())
