"""The import hook: selects, intercepts and instruments the functions autograph compiles.

``select`` (rules), ``finder`` (the ``sys.meta_path`` finder), ``instrument`` (wrapt
wrappers), ``install`` (``autograph.install``/``uninstall``), ``startup`` (the ``.pth``
entry point). Nothing is imported here, so that importing a submodule stays cheap.
"""
