"""The extension the installed IPython configuration (jupyter-config/ipython/ipython_config.json,
copied to <env>/etc/ipython/) loads in every IPython and Jupyter kernel of the environment.
Set WARP_INTERACTIVE_NO_EXTENSION=1 to keep it from loading; ``%load_ext warp_interactive``
still works then."""

import os


def load_ipython_extension(ipython):
    if os.environ.get("WARP_INTERACTIVE_NO_EXTENSION") == "1":
        return
    from . import register
    register(ipython)


def unload_ipython_extension(ipython):
    from . import unregister
    unregister(ipython)
