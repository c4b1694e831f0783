"""Widgets that still show something where no widget front-end runs.

A widget's output is a reference to a model living in the kernel
(``application/vnd.jupyter.widget-view+json``): a notebook saved without widget state, turned
into HTML by nbconvert or shown by GitHub, has nothing to draw and the cell's output is blank.
The widgets here add the same content as plain HTML (and text) to their display bundle:
front-ends that run widgets pick the widget, the others the HTML.
"""

import types


def _bundle_with(html, text):
    def _repr_mimebundle_(self, **kwargs):
        bundle = type(self)._repr_mimebundle_(self, **kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data = dict(data or {})
        data["text/html"] = html() if callable(html) else html
        data["text/plain"] = text() if callable(text) else text
        return (data, bundle[1]) if isinstance(bundle, tuple) else data
    return _repr_mimebundle_


def with_static_fallback(widget, html, text):
    """Give ``widget`` an HTML and a text form in its display bundle (each a string, or a
    function returning one, called when the widget is displayed, so paging shows the page)."""
    widget._repr_mimebundle_ = types.MethodType(_bundle_with(html, text), widget)
    widget.static_html = html if callable(html) else (lambda: html)
    return widget
