"""Questions answered from the typed IR: which arrays a kernel reads and writes, which functions it reaches."""
