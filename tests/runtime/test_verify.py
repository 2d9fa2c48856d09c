"""Verify mode (settings.verify): compiled calls checked against the original on copies."""
from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import torch

import autograph
from autograph.errors import SettingsError
from autograph.runtime.verify import Copies, VerifiedEntry, VerifyMismatchWarning
from autograph.settings import Settings, load_settings, set_current_settings

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def verify():
    """Process settings with verify on (``verify(calls=N)`` changes N); clean caches."""
    def use(calls: int = 3) -> None:
        set_current_settings(Settings(backend="eager", verify=True, verify_calls=calls))
    use()
    autograph.reset()
    yield use
    autograph.reset()
    set_current_settings(None)


def perturb_first_output(gm, example_inputs):
    """A deliberately wrong backend: adds 1 to the graph's first floating-point output."""
    def run(*args):
        out = gm(*args)
        if isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor) and out[0].is_floating_point():
            return (out[0] + 1,) + tuple(out[1:])
        return out
    return run


def clone_inputs(gm, example_inputs):
    """A deliberately wrong backend: the graph runs on clones, so in-place changes of inputs are lost."""
    return lambda *args: gm(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])


def scale(x, y):
    z = x * 2 + y
    return z.sin()


def bump(x, y):
    y.add_(1)
    return x + y


def _calls(fn, make_args, n):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [fn(*make_args()) for _ in range(n)]
    return results, [w for w in caught if issubclass(w.category, VerifyMismatchWarning)]


def _stats(compiled):
    (function,) = [f for f in autograph.report().functions if f.qualname == compiled.__wrapped__.__qualname__]
    return function


def _args():
    return torch.arange(3.0), torch.ones(3)


def test_a_correct_backend_reports_nothing_and_stops_checking_after_verify_calls(verify):
    verify(calls=2)
    compiled = autograph.compile(scale, backend="eager")
    results, mismatches = _calls(compiled, _args, 4)
    assert not mismatches
    for result in results:
        assert torch.equal(result, scale(*_args()))
    (entry,) = compiled.entries
    assert not isinstance(entry.fn, VerifiedEntry)  # checked twice, then the compiled call runs alone
    assert _stats(compiled).verified_calls == 2 and not _stats(compiled).verify_mismatches


def test_a_wrong_backend_is_reported_with_function_guards_and_graph_and_the_caller_gets_eager_results(verify):
    compiled = autograph.compile(scale, backend=perturb_first_output)
    results, mismatches = _calls(compiled, _args, 3)
    for result in results:  # every call, also the first (the mismatching one), returns the original's value
        assert torch.equal(result, scale(*_args()))
    (warning,) = mismatches  # reported once; the entry is disabled after it
    text = str(warning.message)
    assert f"scale ({__file__}:{scale.__code__.co_firstlineno})" in text
    assert "the result: max abs difference 1" in text
    assert "x: Tensor float32 cpu size (3,)" in text  # the entry's guards
    assert "graph __compiled_fn_" in text and "def forward(self, x" in text and "sin" in text
    (entry,) = compiled.entries
    assert entry.fn is scale  # disabled: calls this entry matches run the original
    report = autograph.report()
    assert report.totals()["verify_mismatches"] == 1 and "VERIFY MISMATCH" in str(report)


def test_mismatch_is_also_logged_on_the_verify_channel(verify, caplog):
    compiled = autograph.compile(scale, backend=perturb_first_output)
    with caplog.at_level("INFO", logger="autograph.verify"):
        _calls(compiled, _args, 1)
    assert any("behaved differently" in r.getMessage() for r in caplog.records if r.name == "autograph.verify")


def test_lost_in_place_change_of_an_argument_is_found_and_the_caller_sees_the_eager_change(verify):
    compiled = autograph.compile(bump, backend=clone_inputs)
    x, y = torch.arange(3.0), torch.ones(3)
    with pytest.warns(VerifyMismatchWarning, match=r"argument 'y' after the call: max abs difference 1"):
        result = compiled(x, y)
    assert torch.equal(y, torch.full((3,), 2.0))  # changed once, as the original does
    assert torch.equal(result, torch.arange(3.0) + 2)


def test_random_numbers_are_the_same_in_both_runs_and_consumed_once(verify):
    def noisy(x):
        return x + torch.rand(3)

    compiled = autograph.compile(noisy, backend="eager")
    torch.manual_seed(0)
    got, mismatches = _calls(compiled, lambda: (torch.zeros(3),), 3)
    torch.manual_seed(0)
    expected = [noisy(torch.zeros(3)) for _ in range(3)]
    assert not mismatches
    assert all(torch.equal(a, b) for a, b in zip(got, expected))


def test_a_compiled_module_with_buffers_and_dropout_is_verified_without_false_reports(verify):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4), torch.nn.Dropout(0.5))
    reference = copy.deepcopy(model)
    compiled = autograph.compile(model)
    x = torch.randn(8, 4)
    torch.manual_seed(1)
    got, mismatches = _calls(compiled, lambda: (x,), 4)
    torch.manual_seed(1)
    expected = [reference(x) for _ in range(4)]
    assert not mismatches
    assert all(torch.equal(a, b) for a, b in zip(got, expected))
    assert torch.equal(model[1].running_mean, reference[1].running_mean)  # buffers updated once per call
    assert int(model[1].num_batches_tracked) == 4


def test_an_exception_only_one_side_raises_is_a_mismatch(verify):
    def raising_backend(gm, example_inputs):
        def run(*args):
            raise RuntimeError("backend bug")
        return run

    compiled = autograph.compile(scale, backend=raising_backend)
    with pytest.warns(VerifyMismatchWarning, match="compiled call raised RuntimeError: backend bug, the original returned"):
        result = compiled(*_args())
    assert torch.equal(result, scale(*_args()))


def test_the_same_exception_on_both_sides_propagates_without_a_report(verify):
    def picky(x):
        if x.shape[0] > 2:
            raise ValueError("too long")
        return x * 2

    compiled = autograph.compile(picky, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("error", VerifyMismatchWarning)
        with pytest.raises(ValueError, match="too long"):
            compiled(torch.ones(3))


def test_a_rebound_global_changes_once(verify):
    namespace = {"torch": torch, "COUNT": 0}
    exec(textwrap.dedent("""
        def counting(x):
            global COUNT
            COUNT += 1
            return x * COUNT
    """), namespace)
    compiled = autograph.compile(namespace["counting"], backend="eager")
    results, mismatches = _calls(compiled, lambda: (torch.ones(2),), 3)
    assert not mismatches
    assert namespace["COUNT"] == 3
    assert [r.tolist() for r in results] == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]


def test_arguments_that_cannot_be_copied_run_unverified_and_say_so(verify):
    def first(x, gen):
        return x + next(gen)

    compiled = autograph.compile(first, backend="eager")
    gen = (float(i) for i in range(5))
    assert torch.equal(compiled(torch.zeros(2), gen), torch.zeros(2))
    assert next(gen) == 1.0  # the caller's generator advanced once
    assert any("not verified: cannot copy a generator" in note for note in _stats(compiled).verify_skipped)


def test_copies_keep_aliasing_requires_grad_and_parameters():
    base = torch.arange(6.0)
    view = base[2:]
    leaf = torch.ones(2, requires_grad=True)
    param = torch.nn.Parameter(torch.zeros(2))
    copies = Copies()
    c_base, c_view, c_leaf, c_param, c_list = (copies.copy(v) for v in (base, view, leaf, param, [base, base]))
    c_view.add_(1)
    assert torch.equal(c_base, torch.tensor([0.0, 1.0, 3.0, 4.0, 5.0, 6.0])) and torch.equal(base, torch.arange(6.0))
    assert c_leaf.requires_grad and c_leaf.is_leaf and type(c_param) is torch.nn.Parameter
    assert c_list[0] is c_base and c_list[1] is c_base
    assert copies.original_of(c_view) is view and copies.original_of(c_list) is not None


def test_settings_read_verify_from_the_environment():
    assert load_settings(env={"AUTOGRAPH_VERIFY": "1"}).verify is True
    assert load_settings(env={"AUTOGRAPH_VERIFY": "0"}).verify is False
    assert load_settings(env={"AUTOGRAPH_VERIFY_CALLS": "5"}).verify_calls == 5
    assert Settings().verify is False and Settings().verify_calls == 3
    with pytest.raises(SettingsError, match="AUTOGRAPH_VERIFY='maybe'"):
        load_settings(env={"AUTOGRAPH_VERIFY": "maybe"})
    with pytest.raises(SettingsError, match="AUTOGRAPH_VERIFY_CALLS"):
        load_settings(env={"AUTOGRAPH_VERIFY_CALLS": "0"})


# -- end to end: AUTOGRAPH_VERIFY=1 python -m autograph run ------------------------

WRONG_BACKEND = '''
import torch

def perturb(gm, example_inputs):
    def run(*args):
        out = gm(*args)
        return (out[0] + 1,) + tuple(out[1:])
    return run
'''

MODEL = '''
import torch

def blend(x, w):
    h = torch.tanh(x @ w)
    return h * 2 + 1
'''

SCRIPT = '''
import torch
import vpkg.model
x, w = torch.ones(2, 3), torch.full((3, 3), 0.1)
for _ in range(3):
    print(vpkg.model.blend(x, w).sum().item())
'''


def _run_verified(tmp_path: Path, backend: str, verify: str = "1") -> subprocess.CompletedProcess:
    (tmp_path / "vpkg").mkdir(exist_ok=True)
    (tmp_path / "vpkg" / "__init__.py").write_text("")
    (tmp_path / "vpkg" / "model.py").write_text(MODEL)
    (tmp_path / "wrong_backend.py").write_text(WRONG_BACKEND)
    (tmp_path / "main.py").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRAPH")}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(tmp_path)]), AUTOGRAPH_VERIFY=verify,
               AUTOGRAPH_PACKAGES="vpkg", AUTOGRAPH_BACKEND=backend, AUTOGRAPH_CONFIG="",
               AUTOGRAPH_COMPILE_THRESHOLD="1",  # every call compiled, so every call is checked
               AUTOGRAPH_REPORT_STYLE="all")  # every table (the summary has one row per function)
    return subprocess.run([sys.executable, "-m", "autograph", "run", "--report", "main.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_autograph_run_with_verify_catches_a_wrong_backend_and_names_function_and_graph(tmp_path):
    result = _run_verified(tmp_path, "wrong_backend:perturb")
    assert result.returncode == 0, result.stderr
    expected = (torch.tanh(torch.ones(2, 3) @ torch.full((3, 3), 0.1)) * 2 + 1).sum().item()
    assert [float(line) for line in result.stdout.split()] == pytest.approx([expected] * 3)  # eager values
    assert "VerifyMismatchWarning" in result.stderr
    assert f"blend ({tmp_path / 'vpkg' / 'model.py'}:4)" in result.stderr
    assert "graph __compiled_fn_" in result.stderr and "code: h = torch.tanh(x @ w)" in result.stderr
    assert "what differed: the result: max abs difference 1" in result.stderr
    assert "VERIFY MISMATCH" in result.stderr  # the run report


def test_autograph_run_with_verify_and_a_correct_backend_reports_nothing(tmp_path):
    result = _run_verified(tmp_path, "eager")
    assert result.returncode == 0, result.stderr
    assert "VerifyMismatchWarning" not in result.stderr and "VERIFY" not in result.stderr
    assert re.search(r"verified calls\s+\|\s+3\s", result.stderr), result.stderr  # all three calls checked


def test_settings_read_verify_strict():
    assert load_settings(env={"AUTOGRAPH_VERIFY": "strict"}).verify == "strict"
    assert Settings(verify="strict").verify == "strict"


def test_verify_strict_makes_a_run_with_a_mismatch_exit_1_after_the_report(tmp_path):
    result = _run_verified(tmp_path, "wrong_backend:perturb", verify="strict")
    assert result.returncode == 1, result.stderr
    assert "VERIFY MISMATCH" in result.stderr  # the report still printed
    assert "autograph verify (strict): 1 mismatch(es)" in result.stderr


def test_verify_strict_with_a_correct_backend_exits_0(tmp_path):
    result = _run_verified(tmp_path, "eager", verify="strict")
    assert result.returncode == 0, result.stderr


# -- optimizers and schedulers (issue 26): compare like with like ----------------------

def _train_parts(momentum: float = 0.9):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.9)  # patches opt.step
    return model, opt, sched


def optimizer_train_step(model, opt, sched, x):
    opt.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    sched.step()
    return loss.detach()


def step_only(model, opt):
    opt.step()  # grads computed by the caller: the copies need them too
    return model[0].weight.sum()


def test_a_train_step_with_optimizer_and_scheduler_verifies_clean(verify):
    model, opt, sched = _train_parts()
    f = autograph.compile(optimizer_train_step)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VerifyMismatchWarning)
        for i in range(4):
            f(model, opt, sched, torch.full((2, 4), float(i)))
    assert f.stats.verify_mismatches == [] and f.stats.verified_calls >= 1


def test_a_step_with_grads_from_the_caller_verifies_clean(verify):
    model, opt, _ = _train_parts()
    f = autograph.compile(step_only)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VerifyMismatchWarning)
        for i in range(3):
            model(torch.full((2, 4), float(i + 1))).sum().backward()
            f(model, opt)
    assert f.stats.verify_mismatches == []


def test_dicts_keyed_by_tensors_are_compared_by_identity():
    from autograph.runtime.verify import Comparer
    a, b = torch.ones(2), torch.zeros(3)
    copies = Copies()
    ca, cb = copies.copy(a), copies.copy(b)
    copies.finish()
    assert Comparer(copies).diff({a: 1, b: 2}, {ca: 1, cb: 2}, "state") is None
    assert "keys" in Comparer(copies).diff({a: 1, b: 2}, {cb: 2, ca: 1}, "state")


def test_a_loss_passed_with_the_model_is_not_verified_and_says_why(verify):
    """A copied loss keeps its graph to the caller's parameters: no faithful reference."""
    def backward_and_step(loss, model, opt):
        loss.backward()
        opt.step()
        return model[0].weight.sum()

    model, opt, _ = _train_parts()
    f = autograph.compile(backward_and_step)
    before = [p.detach().clone() for p in model.parameters()]
    f(model(torch.ones(2, 4)).sum(), model, opt)
    want_model, want_opt, _ = _train_parts()
    backward_and_step(want_model(torch.ones(2, 4)).sum(), want_model, want_opt)
    after = list(model.parameters())
    assert all(torch.equal(p, q) for p, q in zip(after, want_model.parameters()))  # one backward, one step
    assert any(not torch.equal(p, q) for p, q in zip(after, before))
    assert any("autograd graph reaches" in note for note in f.stats.verify_skipped)


def scaled_backward(loss, scale):
    (loss * scale).backward()
    return scale


def test_a_backward_through_a_passed_loss_verifies_clean_and_runs_once(verify):
    """The reference run's backward must not free (or accumulate into) the caller's graph."""
    model, _, _ = _train_parts()
    want, _, _ = _train_parts()
    f = autograph.compile(scaled_backward)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VerifyMismatchWarning)
        for i in range(3):
            f(model(torch.full((2, 4), float(i))).sum(), 0.5)
            scaled_backward(want(torch.full((2, 4), float(i))).sum(), 0.5)
    assert f.stats.verify_mismatches == [] and f.stats.verified_calls >= 1
    assert all(torch.equal(p.grad, q.grad) for p, q in zip(model.parameters(), want.parameters()))
