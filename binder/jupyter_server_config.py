"""Jupyter server settings for Binder (postBuild copies this to ~/.jupyter/): open JupyterLab on
the tutorials in notebooks/."""

c = get_config()  # noqa: F821 (provided by Jupyter when it loads this file)

c.ServerApp.default_url = "/lab/tree/notebooks"
