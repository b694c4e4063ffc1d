"""The ids a page defines and the addresses it links to, noted by the renderer as it writes them.

The link check needs of each page its ids and its links. Parsing each page's HTML again to find
them (lxml, 0.31 ms a corpus page: 7 % of a cold build's work) repeated what the renderer knew when
it wrote them: the templates' ``url()``, ``link()`` and ``anchor()``, markdown-it's tags with their
attributes, the tables printed in Python and the use-case menu each note theirs here.
``tests/build/test_known_links.py`` parses every page of the built sites with lxml and finds the
same ids and the same internal links, so a place that writes one without noting it fails there.
"""

from __future__ import annotations


class KnownLinks:
    """One page's ids and link addresses (``href`` and ``src``, as written), in the order written."""

    __slots__ = ("ids", "hrefs")

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def href(self, address: str) -> str:
        """Note a link's address (``href`` or ``src``) and give it back, for a template to print."""
        self.hrefs.append(address)
        return address

    def anchor(self, name: str) -> str:
        """Note an id (or an ``<a name>``) and give it back, for a template to print."""
        self.ids.add(name)
        return name

    def attributes(self, attrs: dict[str, str | int | float]) -> None:
        """Note the ids and addresses among a tag's attributes (markdown-it's ``Token.attrs``)."""
        for name, value in attrs.items():
            if name == "id":
                self.ids.add(str(value))
            elif name in ("href", "src"):
                self.hrefs.append(str(value))
