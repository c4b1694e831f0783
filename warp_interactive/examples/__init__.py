"""``wp.examples``: where example assets live (``wp.examples.get_asset_directory()``), as in the
reference. The assets are this package's own small files (see assets/README.md)."""

import os


def get_asset_directory():
    """The folder holding the example assets."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")


def get_source_directory():
    """The folder of this package's example scripts."""
    return os.path.dirname(os.path.abspath(__file__))
