"""Pre-checks before the graph for value-checked ops on graph inputs (capture/engine/prechecks.py).

Each function has an effect pending before a value-checked op, so without a pre-check the graph
would split. The first call captures one graph; later calls bring indices in range, out of range,
negative and empty: the compiled function must give eager's results, errors and effects.
"""
import pytest
import torch
import torch.nn.functional as F

import autograph
from autograph.explain.find import find_shim

X = torch.arange(12.0).view(3, 4)
W = torch.randn(5, 2)


class Box:
    mark = None


def _compare(f, calls):
    """Compile ``f`` (taking a box it marks first); plain and compiled results, errors and marks
    agree; the capture is one graph without breaks. Returns the entry's transformed source."""
    def run(fn):
        box, out = Box(), []
        for args in calls:
            box.mark = None
            try:
                result = fn(box, *args)
                result = result.tolist() if isinstance(result, torch.Tensor) else result
            except Exception as exc:  # noqa: BLE001 - the comparison is the point
                result = (type(exc).__name__, str(exc))
            out.append((result, box.mark))
        return out
    plain = run(f)
    cf = autograph.compile(f, backend="eager")
    assert run(cf) == plain
    entries = find_shim(cf).entries  # one per shape seen
    for entry in entries:
        assert entry.result.breaks == [] and len(entry.result.graphs) == 1, entry.result.breaks
    return entries[0].result.transformed_source


def test_embedding_ids_in_range_out_of_range_negative_and_empty():
    def f(log, ids):
        log.mark = "ran"
        return F.embedding(ids, W)
    source = _compare(f, [(torch.tensor([0, 4]),), (torch.tensor([5]),), (torch.tensor([-1]),),
                          (torch.tensor([], dtype=torch.long),), (torch.tensor([[1], [2]]),)])
    assert "if not (" in source  # the pre-check, before the graph call


def test_embedding_of_a_view_of_the_input():
    def f(log, ids):
        log.mark = "ran"
        return torch.nn.functional.embedding(ids.reshape(-1).unsqueeze(0), W)
    _compare(f, [(torch.tensor([[0, 4]]),), (torch.tensor([[3, 7]]),), (torch.tensor([[2, 2]]),)])


@pytest.mark.parametrize("loss", [F.cross_entropy, lambda x, t, **kw: F.nll_loss(x.log_softmax(-1), t, **kw)])
def test_loss_targets_with_ignore_index(loss):
    logits = torch.randn(3, 4)

    def f(log, target):
        log.mark = "ran"
        return loss(logits, target, ignore_index=-100)
    _compare(f, [(torch.tensor([0, 3, 1]),), (torch.tensor([0, -100, 1]),), (torch.tensor([0, 4, 1]),),
                 (torch.tensor([-1, 0, 0]),), (torch.tensor([2, 2, 2]),)])


def test_gather_and_index_select_refuse_negative_indices():
    def f(log, idx):
        log.mark = "ran"
        return torch.gather(X, 1, idx.view(3, 1)) + X.index_select(0, idx)
    _compare(f, [(torch.tensor([0, 1, 2]),), (torch.tensor([0, -1, 2]),), (torch.tensor([0, 3, 2]),),
                 (torch.tensor([2, 2, 0]),)])


def test_tensor_indexing_allows_negative_indices():
    def f(log, idx):
        log.mark = "ran"
        return X[idx]
    _compare(f, [(torch.tensor([0]),), (torch.tensor([-3]),), (torch.tensor([-4]),), (torch.tensor([3]),),
                 (torch.tensor([], dtype=torch.long),), (torch.tensor([2, -1]),)])


def test_in_finally_block_without_pending_effects():
    def f(log, ids):
        try:
            return F.embedding(ids, W)
        finally:
            log.mark = "finally"
    _compare(f, [(torch.tensor([1]),), (torch.tensor([9]),), (torch.tensor([4]),)])


def test_positions_computed_from_sizes_need_no_check():
    """``arange`` positions (plus a predicate's cumsum) are in range whatever the inputs hold."""
    pos_w = torch.randn(16, 2)

    def f(log, ids):
        log.mark = "ran"
        positions = torch.arange(ids.shape[1]).unsqueeze(0) + 1
        mask = ids.ne(0).int()
        counted = torch.cumsum(mask, dim=1).type_as(mask) * mask + 2
        return F.embedding(positions, pos_w) + F.embedding(counted.long(), pos_w)
    source = _compare(f, [(torch.tensor([[1, 0, 3]]),), (torch.tensor([[0, 0, 0]]),)])
    assert "if not (" not in source


def test_no_pre_check_when_nothing_is_pending():
    def f(log, ids):
        return F.embedding(ids, W)
    source = _compare(f, [(torch.tensor([1]),), (torch.tensor([7]),)])
    assert "if not (" not in source


def test_values_in_range():
    from autograph.capture.engine.prechecks import values_in_range, values_nonzero
    assert values_in_range(torch.tensor([0, 4]), 0, 5)
    assert not values_in_range(torch.tensor([0, 5]), 0, 5)
    assert not values_in_range(torch.tensor([-1]), 0, 5)
    assert values_in_range(torch.tensor([-3, 2]), -3, 3)
    assert values_in_range(torch.zeros(0, 3, dtype=torch.long), 0, 1)
    assert values_in_range(torch.tensor([-100, 1]), 0, 2, -100)
    assert values_nonzero(torch.tensor([-1, 2])) and not values_nonzero(torch.tensor([1, 0]))
    assert values_nonzero(torch.zeros(0, dtype=torch.long))
    assert not values_in_range(torch.tensor([-99, 1]), 0, 2, -100)


def test_buckets_computed_from_constants_only_need_no_check():
    """Indices the graph computes from static sizes alone (T5's relative-position buckets: floats,
    ``where``, an in-place ``+=``) are run once at capture: their range is known exactly."""
    bias = torch.randn(8, 2)

    def buckets(n):
        relative = torch.arange(n)[None, :] - torch.arange(n)[:, None]
        out = 0
        out += (relative > 0).to(torch.long) * 4
        relative = torch.abs(relative)
        large = 2 + (torch.log(relative.float() / 2 + 1e-6) * 2).to(torch.long)
        large = torch.min(large, torch.full_like(large, 3))
        out += torch.where(relative < 2, relative, large)
        return out

    def f(box, x):
        box.mark = "ran"
        return F.embedding(buckets(x.shape[0]), bias).sum(-1) + x
    source = _compare(f, [(torch.ones(5, 5),), (torch.zeros(5, 5),)])
    assert "if not (" not in source


def test_constant_index_written_by_an_input_still_splits():
    """A constant index that an op on an input writes in place is no longer a constant."""
    def f(box, x, idx):
        box.mark = "ran"
        pos = torch.arange(3)
        pos.add_(idx)
        return x[pos]
    cf = autograph.compile(f, backend="eager")
    cf(Box(), torch.arange(5.0), torch.tensor(1))
    kinds = [b.kind for b in find_shim(cf).entries[0].result.breaks]
    assert kinds == ["effects-before-run-time-error"]


def test_uninitialized_memory_is_no_constant():
    """``torch.empty`` holds whatever memory held: its values at capture say nothing about the run."""
    def f(box, x):
        box.mark = "ran"
        return x[torch.empty(2, dtype=torch.long).clamp(0, 0)]
    cf = autograph.compile(f, backend="eager")
    cf(Box(), torch.arange(5.0))
    kinds = [b.kind for b in find_shim(cf).entries[0].result.breaks]
    assert kinds == ["effects-before-run-time-error"]


def test_integer_division_by_an_input_checks_for_zeros():
    a = torch.tensor([7, 9])

    def f(box, d):
        box.mark = "ran"
        return (a // d) + (a % d.view(-1))
    source = _compare(f, [(torch.tensor([2, 3]),), (torch.tensor([2, 0]),), (torch.tensor([-1, 4]),)])
    assert "if not (" in source


def test_integer_division_and_power_by_constants_need_no_check():
    def f(box, ids):
        box.mark = "ran"
        return W[ids] + (ids // 2).view(-1, 1) + ids.view(-1, 1) ** 2 + ids.view(-1, 1) % 3
    source = _compare(f, [(torch.tensor([0, 4]),), (torch.tensor([4, 10]),)])
    checks = source.split("if not (")[1].split("\n")[0]
    assert checks.count("__in") == 1  # only the index into W is checked


def test_integer_power_by_an_input_checks_for_negative_exponents():
    a = torch.tensor([2, 3])

    def f(box, e):
        box.mark = "ran"
        return a ** e
    _compare(f, [(torch.tensor([1, 2]),), (torch.tensor([1, -1]),), (torch.tensor([0, 5]),)])


def test_positions_from_sort_and_argmax_need_no_check():
    """``sort``'s indices and ``argmax`` are positions along the dim: in range of a tensor that long."""
    def f(box, x):
        box.mark = "ran"
        _, perm = torch.sort(x)
        return x[perm // 1] + torch.gather(x, 0, torch.argmax(x).view(1)) + x[x.argsort()]
    source = _compare(f, [(torch.tensor([3.0, 1.0, 2.0]),), (torch.tensor([0.0, 5.0, 1.0]),)])
    assert "if not (" not in source


def test_histc_with_a_constant_range_needs_no_split():
    def f(box, x):
        box.mark = "ran"
        return torch.histc(x, bins=4, min=0, max=3)
    _compare(f, [(torch.tensor([0.0, 2.5]),), (torch.tensor([float("nan"), 9.0]),)])


def test_index_assignment_with_an_input_index():
    def f(box, idx):
        box.mark = "ran"
        out = torch.zeros(4)
        out[idx] = 1.0
        return out
    _compare(f, [(torch.tensor([0, 3]),), (torch.tensor([4]),), (torch.tensor([-4]),), (torch.tensor([-5]),)])


def test_input_written_in_the_graph_before_the_op_is_not_pre_checked():
    """The entry would check the values the input has before the graph, not those the op sees."""
    def f(box, ids):
        box.mark = "ran"
        ids.add_(3)
        return F.embedding(ids, W)
    cf = autograph.compile(f, backend="eager")
    ids = torch.tensor([0, 1])
    cf(Box(), ids)
    kinds = [b.kind for b in find_shim(cf).entries[0].result.breaks]
    assert kinds == ["effects-before-run-time-error"]
    box, late = Box(), torch.tensor([1, 2])  # in range before the write, out of range after it
    with pytest.raises(IndexError):
        cf(box, late)
    assert box.mark == "ran" and late.tolist() == [4, 5]


def test_inverse_permutation_of_a_sort_is_in_range():
    """``inv[perm] = arange(n)`` with ``perm`` from sorting n elements writes every element of an
    uninitialised ``empty_like``: its values are positions, as in Hugging Face's MoE un-permute."""
    def f(box, x, ids):
        order = (x.argsort(descending=True).long(),)
        back = torch.empty(3, dtype=torch.long).index_put(order, torch.arange(3))  # before the effect
        box.mark = "ran"
        _, perm = torch.sort(x)
        inv = torch.empty_like(perm)
        inv[perm] = torch.arange(perm.size(0))
        return x[perm][inv] + x[back] + F.embedding(ids, W).sum()
    source = _compare(f, [(torch.tensor([3.0, 1.0, 2.0]), torch.tensor([0])),
                          (torch.tensor([1.0, 1.0, 0.0]), torch.tensor([4])),
                          (torch.tensor([2.0, 0.0, 1.0]), torch.tensor([5]))])  # raises in the pre-check
    checks = source.split("if not (")[1].split("\n")[0]
    assert checks.count("__in") == 1  # only the embedding's ids


def test_inverse_permutation_in_a_finally_block():
    def f(box, x):
        try:
            perm = x.argsort()
            inv = torch.empty_like(perm)
            inv[perm] = torch.arange(3)
            top = torch.empty(3, dtype=torch.long)
            top[x.topk(3).indices] = torch.arange(3)  # all n of n: a permutation too
            return x[inv] + x[top]
        finally:
            box.mark = "finally"
    _compare(f, [(torch.tensor([3.0, 1.0, 2.0]),), (torch.tensor([0.0, 0.0, 1.0]),)])


def test_partial_writes_with_bounded_values_keep_bounds():
    """``arange`` with some elements overwritten by constants holds the union of both."""
    def f(box, x, mask):
        pos = torch.arange(3)
        pos[mask] = 7  # a mask assignment is value-checked itself: before the effect
        box.mark = "ran"
        return x[pos // 3]
    _compare(f, [(torch.tensor([3.0, 1.0, 2.0]), torch.tensor([True, False, True]))])


def _breaks(f, *args) -> list:
    """``(kind, source line)`` of each break of ``f`` compiled and called once."""
    cf = autograph.compile(f, backend="eager")
    try:
        cf(Box(), *args)
    except IndexError:
        pass  # uninitialised memory may hold anything: compare only the graph's shape
    return [(b.kind, b.source_line) for b in find_shim(cf).entries[0].result.breaks]


@pytest.mark.parametrize("index", ["remainder", "partial_topk", "rows_of_argsort"])
def test_index_that_is_no_permutation_leaves_uninitialised_memory(index):
    """Indices that may repeat or miss a position leave elements of ``empty`` unwritten."""
    def f(box, x):
        box.mark = "ran"
        if index == "remainder":
            p = torch.arange(4) % 2
        elif index == "partial_topk":
            p = x.topk(3).indices
        else:
            p = x.view(2, 2).argsort(dim=1).view(-1)
        inv = torch.empty(4, dtype=torch.long)
        inv[p] = torch.arange(p.size(0))
        return x[inv]
    assert _breaks(f, torch.tensor([3.0, 1.0, 2.0, 0.0])) == [("effects-before-run-time-error", "return x[inv]")]


def test_read_before_the_permutation_write_is_uninitialised():
    """Only writes before a read count: a value computed from the memory before it is filled
    holds whatever it held."""
    def f(box, x):
        box.mark = "ran"
        perm = x.argsort()
        inv = torch.empty_like(perm)
        early = inv * 1
        inv[perm] = torch.arange(3)
        return x[early]
    assert _breaks(f, torch.tensor([3.0, 1.0, 2.0])) == [("effects-before-run-time-error", "return x[early]")]


def test_accumulating_index_put_can_leave_the_range():
    def f(box, x):
        pos = torch.arange(3)
        pos.index_put_((x.argsort(),), torch.arange(3), accumulate=True)  # before the effect
        box.mark = "ran"
        return x[pos // 2]
    assert _breaks(f, torch.tensor([3.0, 1.0, 2.0])) == [("effects-before-run-time-error", "return x[pos // 2]")]


def test_positions_from_a_dynamic_arange_are_proven_in_range():
    """``arange(x.size(1))`` under dynamic shapes: its bound is a guarded comparison of the size,
    so the embedding after a pending effect stays in the graph."""
    table = torch.nn.Embedding(64, 4)
    seen: list = []

    def fn(ids):
        seen.append(1)  # a pending effect
        pos = torch.arange(ids.size(1))
        return table(pos) + ids.sum()

    compiled = autograph.compile(fn, backend="eager", dynamic=True)
    for n in (3, 5, 7):
        seen.clear()
        got = compiled(torch.ones(2, n, dtype=torch.long))
        assert seen == [1]
        seen.clear()
        torch.testing.assert_close(got, fn(torch.ones(2, n, dtype=torch.long)))
    stats = find_shim(compiled).stats
    assert not stats.break_reasons and stats.captures == 1, stats.recompiles


def test_a_write_to_other_inputs_memory_keeps_the_pre_check():
    """A batch norm in training mode writes its running statistics (graph inputs): the targets
    are other memory, so they are still checked before the graph, with no split."""
    bn = torch.nn.BatchNorm1d(4)

    def f(box, x, target):
        box.mark = "ran"
        return F.cross_entropy(bn(x), target)
    x = torch.randn(3, 4)
    _compare(f, [(x, torch.tensor([0, 3, 1])), (x, torch.tensor([4, 0, 0])), (x, torch.tensor([-1, 0, 0]))])


def test_an_input_aliasing_a_written_input_is_not_pre_checked():
    """Two views of one tensor: a write through one changes what the other holds."""
    def f(box, buf, ids):
        box.mark = "ran"
        buf.add_(1)
        return F.embedding(ids, W)
    base = torch.tensor([0, 1, 2, 3])
    cf = autograph.compile(f, backend="eager")
    assert cf(Box(), base[:2], base[2:]).shape == (2, 2)
    base = torch.tensor([0, 1, 2, 4])  # in range before the write, out of range after it
    box = Box()
    with pytest.raises(IndexError):
        cf(box, base[2:], base[2:])
    assert box.mark == "ran" and base.tolist() == [0, 1, 3, 5]
