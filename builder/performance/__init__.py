"""Performance of a selection: the layouts estimates are made for (`layouts`), and the
estimates and measured figures a rendering shows."""
