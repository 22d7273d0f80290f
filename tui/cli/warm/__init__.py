"""The warm server: a resident process that has already imported the command line, so that
``threadback search`` and the hooks, which agents run many times a session, skip the ~50 ms of
imports each fresh interpreter pays.

``place`` names the socket (private to the user, one per interpreter and ``sys.path``),
``protocol`` is what crosses it, ``client`` asks the server, ``spawn`` starts one after a cold
run, ``server`` is the process itself: for each request it forks a child that takes over the
caller's stdin, stdout and stderr, working folder, environment and arguments and runs the
command exactly as ``tui.cli.main`` would. Only the plain ``search`` and ``hook`` lines go there
(``tui.cli.quick_args``); anything else, and any failure to reach the server, runs in the
caller's own process as before. ``THREADBACK_WARM=0`` or ``[cli] warm = false`` turns it off.
"""
