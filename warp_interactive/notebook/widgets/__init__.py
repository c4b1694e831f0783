"""Rich displays: arrays (summary, paged table, heat-map), timings (table, bar chart), tapes
(graph picture, gradient norms). HTML/SVG/PNG made here with NumPy only; ipywidgets is imported
only by the interactive widgets (paging controls)."""
