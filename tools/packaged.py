"""Where the package's own data is: the case tree and the schemas.

Both travel inside the installed package (``doublecheck.cases``,
``doublecheck.schemas``) and are found through ``importlib.resources``, so a
wheel, an sdist and an editable install look the same.  This module imports
nothing else of doublecheck: the command line needs ``CASES_DIR`` as the
default of ``--cases-dir`` before it knows whether any case will be read.
"""

from importlib import resources
from pathlib import Path


def package_folder(package: str) -> Path:
    """The folder of a data package of doublecheck (installs are never zipped)."""
    return Path(str(resources.files(package)))


CASES_DIR = package_folder("doublecheck.cases")
SCHEMAS_DIR = package_folder("doublecheck.schemas")
