"""Bounds on a frontmatter block's YAML before it becomes Python values.

YAML's anchors and aliases (`&a`, `*a`) let a few hundred bytes stand for billions of values
(the "billion laughs": nine lists of nine aliases, nine deep, are 387 million strings) and let a
list hold itself (`&a [*a]`). PyYAML builds either cheaply, as shared or cyclic objects, but
everything that then walks the frontmatter (its tags, the words the index keeps, the catalog
tidy asks the model with) expands it: one such note held the index job for good, sent a tag of
tens of megabytes in every tidy prompt and made a cyclic one fail with RecursionError. A note's
properties are a few flat values, so a block that nests deeper than MAX_DEPTH, refers to itself
or whose aliases add more than MAX_ALIAS_EXPANSION values is read as no frontmatter at all,
with the reason, like any other frontmatter that cannot be read.

The walk is over PyYAML's node graph (composed, not yet constructed) and iterative, so it
neither expands the aliases nor recurses itself.
"""

from __future__ import annotations

from yaml.nodes import MappingNode, Node, SequenceNode

# Deeper than any note's properties; far inside Python's recursion limit for the code that
# walks the values afterwards (chunking.frontmatter_words, str() of a nested list).
MAX_DEPTH = 64
# Values aliases may add to the block beyond those written out: a property list repeated by
# an alias a few times is fine; a bomb is millions.
MAX_ALIAS_EXPANSION = 10_000


class YamlTooLarge(ValueError):
    """The block refers to itself, nests too deeply or its aliases expand too far."""


def check_node(root: Node) -> None:
    """Raise YamlTooLarge unless `root`'s graph, aliases expanded, is small, shallow and holds
    no value inside itself. Each node is visited once (its expanded size and depth kept)."""
    sizes: dict[int, int] = {}  # node id -> values it expands to (itself included)
    depths: dict[int, int] = {}  # node id -> levels it expands to (itself included)
    on_path: set[int] = set()  # the nodes being expanded: the current node's ancestors
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            depths[key] = 1 + max((depths[id(child)] for child in children), default=0)
            continue
        if key in on_path:
            raise YamlTooLarge("its aliases (*name) make a value hold itself")
        if key in sizes:
            continue
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))
    if depths[id(root)] > MAX_DEPTH:
        raise YamlTooLarge(f"it nests more than {MAX_DEPTH} levels deep")
    written, expanded = len(sizes), sizes[id(root)]
    if expanded - written > MAX_ALIAS_EXPANSION:
        raise YamlTooLarge(f"its aliases (*name) turn {written:,} written values into {expanded:,}")


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []
