"""The value the notebook's ``show_*`` functions and ``--annotate`` return (apart from api.py,
which imports the magic: the magic imports this, not api)."""


class Display:
    """What the ``show_*`` functions return: HTML in a notebook, readable text elsewhere (a
    terminal IPython, ``print``, a notebook converted to text)."""

    def __init__(self, html_text, text):
        self.html, self.text = html_text, text

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.text
