"""``keys()``/``values()``/``items()`` of dicts are live views: every use reads the dict as it is then."""
from __future__ import annotations

import collections

import torch

from tests.capture.checks import check


def one(*shape):
    return lambda: (torch.randn(*shape),)


def values_view_sees_later_stores(x):
    d = {3: x}
    values = d.values()
    d[3] = x + 1
    d[4] = x + 2
    return len(values), list(values)


def keys_view_membership_after_store(x):
    d = {3: x}
    keys = d.keys()
    d[4] = x + 1
    return 3 in keys, 4 in keys, 5 in keys, {3: 2, 4: "aa"}.keys() == keys


def view_iterated_twice(x):
    d = {"a": x, "b": x + 1}
    ks = d.keys()
    out = x
    for k in ks:
        out = out + d[k]
    for _k in ks:
        out = out * 2
    return out


def items_view_after_pop(x):
    d = {"a": x, "b": x * 2}
    items = d.items()
    d.pop("a")
    return [v for _, v in items], len(items), bool(items)


def view_returned(x):
    d = {"a": x}
    return d.keys(), d.values(), d.items()


def test_values_view_sees_later_stores():
    h = check(values_view_sees_later_stores, one(3))
    assert h.breaks == []


def test_keys_view_membership_after_store():
    h = check(keys_view_membership_after_store, one(3))
    assert h.breaks == []


def test_view_iterated_twice_yields_every_key_both_times():
    h = check(view_iterated_twice, one(3))
    assert h.breaks == []


def test_items_view_after_pop():
    h = check(items_view_after_pop, one(3))
    assert h.breaks == []


def test_views_returned_are_views_of_the_returned_dict():
    from tests.capture.harness import Harness
    h = Harness()
    f = h.compile(view_returned)
    keys, values, items = f(torch.ones(2))
    assert type(keys) is type({}.keys()) and list(keys) == ["a"]
    assert type(values) is type({}.values()) and type(items) is type({}.items())


# --- views that outlive a graph break: rebuilt as views of the live object, never as iterators

class SubDict(dict):
    pass


def module_dict():
    torch.manual_seed(0)
    return torch.nn.ModuleDict({"a": torch.nn.Linear(3, 3), "b": torch.nn.ReLU()})


def module_dict_views_union_after_break(md, x):
    """The shape of transformers' ``tied_mapping.keys() | tied_mapping.values()``: the views
    are on the stack when the graph breaks."""
    print(end="")
    return md.keys() | md.keys(), x + 1


def module_dict_view_after_break(md, x):
    keys = md.keys()
    print(end="")
    return len(keys), type(keys), keys | {"c"}, x + 1


def module_dict_view_iterated_twice(md, x):
    keys = md.keys()
    for k in keys:
        x = md[k](x)
    for _ in keys:
        x = x + 1
    return x


def module_dict_items_and_values(md, x):
    for _, layer in md.items():
        x = layer(x)
    return x, type(md.items()), len(md.values())


def subclass_dict_view_live_after_break(x):
    d = SubDict(a=1)
    keys = d.keys()
    print(end="")
    d["c"] = 3
    return type(keys), list(keys), x + 1


def ordered_dict_view_live_after_break(x):
    import collections
    d = collections.OrderedDict(a=1, b=2)
    items = d.items()
    print(end="")
    d["c"] = 3
    return type(items), list(items), x + 1


def test_module_dict_views_on_the_stack_at_a_break():
    md = module_dict()
    check(module_dict_views_union_after_break, lambda: (md, torch.randn(3)))


def test_module_dict_view_kept_across_a_break():
    md = module_dict()
    check(module_dict_view_after_break, lambda: (md, torch.randn(3)))


def test_module_dict_view_iterated_twice_runs_both_loops():
    md = module_dict()
    h = check(module_dict_view_iterated_twice, lambda: (md, torch.randn(3)))
    assert h.breaks == []


def test_module_dict_items_and_values_are_views():
    md = module_dict()
    h = check(module_dict_items_and_values, lambda: (md, torch.randn(3)))
    assert h.breaks == []


def test_view_of_a_dict_subclass_made_in_the_function_stays_live_across_a_break():
    check(subclass_dict_view_live_after_break, one(3))


def test_view_of_an_ordered_dict_made_in_the_function_stays_live_across_a_break():
    check(ordered_dict_view_live_after_break, one(3))


class PlainDict(dict):
    pass


class PlainOrdered(collections.OrderedDict):
    pass


def dict_subclass_equality(a, b):
    s = PlainDict(x=1, y=2)
    o = PlainOrdered(x=1, y=2)
    return (a + 1, s == {"y": 2, "x": 1}, {"x": 1, "y": 3} != s, s == PlainDict(x=1),
            o == collections.OrderedDict(y=2, x=1), o == collections.OrderedDict(x=1, y=2), o == {"y": 2, "x": 1})


def test_a_dict_subclass_compares_as_its_base_type():
    """``==`` of a dict subclass made during capture is ``dict``'s (``OrderedDict``'s: order counts
    between two ordered dicts, not against a plain one)."""
    h = check(dict_subclass_equality, lambda: (torch.randn(2), torch.randn(2)))
    assert h.breaks == [], [str(b) for b in h.breaks]


def bound_method_names(a, b):
    s = PlainDict(x=1)
    return a + 1, s.clear.__name__, s.get.__qualname__, s.__eq__.__qualname__, s.pop.__name__


def test_a_dict_subclass_bound_method_has_the_names_python_gives_it():
    h = check(bound_method_names, lambda: (torch.randn(2), torch.randn(2)))
    assert h.breaks == [], [str(b) for b in h.breaks]


def wrong_arity_and_pairs(a, b):
    out = []
    for d in ({"x": 1}, PlainDict(x=1)):
        for call in (lambda d: d.get(), lambda d: d.get(1, 2, 3), lambda d: d.pop(), lambda d: d.setdefault(),
                     lambda d: d.update([(1, 2, 3)]), lambda d: d.update([(1, 2), "abc"])):
            try:
                call(d)
            except (TypeError, ValueError) as exc:
                out.append((type(exc).__name__, exc.args))
    return a + 1, out


def test_dict_methods_raise_pythons_errors_for_wrong_arguments():
    """``d.get()`` and a pair of three in ``update`` raise Python's TypeError/ValueError (they
    crashed capture with an IndexError)."""
    h = check(wrong_arity_and_pairs, lambda: (torch.randn(2), torch.randn(2)))
    assert h.breaks == [], [str(b) for b in h.breaks]
