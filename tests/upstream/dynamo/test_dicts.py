# Owner(s): ["module: dynamo"]


import enum
import itertools
import operator
import types
import unittest
import weakref
from collections import defaultdict, namedtuple, OrderedDict, UserDict
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple
from unittest.mock import patch

import torch
import torch._dynamo.test_case
import torch._dynamo.testing
import torch._functorch.config
import torch.fx as fx
import torch.nn
import torch.utils.checkpoint
from torch._dynamo.exc import Unsupported
from torch._dynamo.testing import same
from torch._dynamo.utils import dict_items
from torch.fx.experimental.proxy_tensor import _ModuleStackTracer
from torch.testing._internal.common_utils import (
    instantiate_parametrized_tests,
    make_dynamo_test,
    munge_exc,
    parametrize,
)
from torch.testing._internal.logging_utils import LoggingTestCase, make_logging_test


class _BadCmpExc(Exception):
    pass


class _BadCmp:
    # Hashable (so it can be a dict value compared via PyObject_RichCompareBool)
    # but its __eq__ raises.
    def __eq__(self, other: object) -> bool:
        raise _BadCmpExc

    def __hash__(self) -> int:
        return 1


class SimpleDict(dict):
    pass


class DummyUserDict(UserDict):
    pass


class FakeMapping:
    def __init__(self, value: Any) -> None:
        self._value = value
        self.keys = lambda: ["a", "b", "c"]  # not required to be a method

    def __getitem__(self, key: str) -> Any:
        return self._value


class DictTests(torch._dynamo.test_case.TestCase):
    def test_dict_subclass_instantiation(self):
        def fn(x):
            sd = SimpleDict(x=5)
            return sd["x"] * x

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_subclass_local_mutation(self):
        def fn(x):
            sd = SimpleDict(x=5)
            z = sd["x"] * x
            sd["x"] = 10
            return z * sd["x"]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_contains_enum(self):
        class TensorDim(str, enum.Enum):
            DDP = "ddp"
            FSDP = "fsdp"
            CP = "cp"
            TP = "tp"

        class Foo(torch.nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                val = x.sin()
                if TensorDim.DDP == "ddp":
                    val += x.cos()
                if "ddp" == TensorDim.DDP:
                    val += x.cos()
                return val

        inp = torch.randn(4, 4)
        mod = Foo()
        opt_f = torch.compile(mod, backend="eager", fullgraph=True)
        self.assertEqual(mod(inp), opt_f(inp))

    def test_dict_subclass_local_with_non_dict_method(self):
        # Checks that add_1 method is inlined
        class MethodDict(dict):
            def add_1(self, x):
                return x + 1

        def fn(x):
            sd = MethodDict(x=5)
            z = sd["x"] * x
            sd["x"] = 10
            return sd.add_1(z * sd["x"])

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_contains(self):
        sd = dict()
        sd[2] = 5
        sd[4] = 10

        def fn(x):
            if 1 in sd:
                x = x * 2
            else:
                x = x * 3
            return x

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

        # Ensure a recompilation
        sd[1] = 15
        self.assertEqual(fn(x), opt_fn(x))

        # Ensure not recompilation because the traced program remains same here.
        sd[2] = 10
        with unittest.mock.patch("torch._dynamo.config.error_on_recompile", True):
            self.assertEqual(fn(x), opt_fn(x))

    def test_dict_torch_size_dynamic_key(self):
        class DynamicShapeModel(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer_configs = {
                    torch.Size([32, 64]): torch.nn.Linear(32, 64),
                    torch.Size([64, 128]): torch.nn.Linear(64, 128),
                    torch.Size([128, 256]): torch.nn.Linear(128, 256),
                }
                self.activation_functions = {
                    torch.Size([32]): torch.nn.ReLU(),
                    torch.Size([64]): torch.nn.Tanh(),
                    torch.Size([128]): torch.nn.Sigmoid(),
                }

            def forward(self, x):
                current_shape = torch.tensor(x.shape[1:])
                shape_key = torch.Size([current_shape[0], 64])
                if shape_key in self.layer_configs:
                    x = self.layer_configs[shape_key](x)

                activation_shape = torch.Size([x.shape[1]])
                if activation_shape in self.activation_functions:
                    x = self.activation_functions[activation_shape](x)
                return x

        model = DynamicShapeModel().eval()

        for features in (32, 64, 128, 16):
            x = torch.randn(4, features)
            with torch.no_grad():
                eager_out = model(x)

            torch._dynamo.reset()
            compiled_model = torch.compile(model, backend="eager")
            with torch.no_grad():
                compiled_out = compiled_model(x)

            self.assertTrue(same(eager_out, compiled_out))

    def test_dict_subclass_methods_fallback_readonly(self):
        sd = SimpleDict()
        sd[2] = 5
        sd[4] = 10
        # check that regular attr accesses work well
        sd.attr = 4

        def fn(x):
            for value in sd.values():
                x = x * value
            for key in sd:
                x = x * key
            for k, v in sd.items():
                x = x * k
                x = x * v
            # for k in sd:
            #     x = x * k

            if 1 in sd:
                x = x * 2
            else:
                x = x * 3

            x = x * sd.get(2, 0)
            x = x * sd.get(3, 4)
            x = len(sd) * x
            x = x * sd.attr
            return x

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

        # Ensure a recompilation
        sd[6] = 15
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_subclass_instantiation_return(self):
        def fn(x):
            sd = SimpleDict(x=5 * x)
            sd["y"] = 10
            return sd

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(type(ref), type(res))
        self.assertEqual(ref["x"], res["x"])
        self.assertEqual(ref["y"], res["y"])

    def test_dict_subclass_methods_fallback_mutation(self):
        def fn(sd, x):
            for value in sd.values():
                x = x * value
            sd[6] = 14
            for key in sd:
                x = x * key
            for k, v in sd.items():
                x = x * k
                x = x * v
            # for k in sd:
            #     x = x * k

            if 1 in sd:
                x = x * 2
            else:
                x = x * 3

            x = x * sd.get(2, 0)
            x = x * sd.get(3, 4)
            x = len(sd) * x
            return x

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

        sd1 = SimpleDict()
        sd1[2] = 5
        sd1[4] = 10

        sd2 = SimpleDict()
        sd2[2] = 5
        sd2[4] = 10
        self.assertTrue(sd1 == sd2)

        self.assertEqual(fn(sd1, x), opt_fn(sd2, x))
        self.assertTrue(sd1 == sd2)

    def test_dict_subclass_setitem(self):
        class SetItemDict(dict):
            def __setitem__(self, key, value):
                super().__setitem__(key, value + 1)

        def fn(x):
            sd = SetItemDict(x=5 * x)
            sd["y"] = 10
            return sd

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(type(ref), type(res))
        self.assertEqual(ref["x"], res["x"])
        self.assertEqual(ref["y"], res["y"])

    def test_custom_iter_dict(self):
        class ReversedDict(dict):
            def __iter__(self):
                return reversed(list(self.keys()))

        d = {
            "foo": 1,
            "bar": 2,
        }

        d = ReversedDict(d)

        @torch.compile(backend="eager")
        def fn(x, d):
            # Forces side effects attribute reapplication logic
            d.sample = 1
            d["baz"] = 4
            return x * d["foo"] * d["bar"]

        fn(torch.randn(4), d)
        # This is intentional because the dict is mutated, so we will have a recompilation.
        fn(torch.randn(4), d)
        with unittest.mock.patch("torch._dynamo.config.error_on_recompile", True):
            fn(torch.randn(4), d)

    def test_custom_keys_iter_dict(self):
        class ReversedDict(dict):
            def keys(self):
                return ["bar", "foo"]

        d = {
            "foo": 1,
            "bar": 2,
        }

        d = ReversedDict(d)

        @torch.compile(backend="eager")
        def fn(x, d):
            return x * d["foo"] * d["bar"]

        fn(torch.randn(4), d)
        with unittest.mock.patch("torch._dynamo.config.error_on_recompile", True):
            fn(torch.randn(4), d)

    def test_dict_guard_on_keys_order(self):
        d = {
            2: 4,
            3: 5,
        }

        cnts = torch._dynamo.testing.CompileCounter()

        def fn(x, d):
            for key, value in d.items():
                x = x * key + value
            return x

        opt_fn = torch.compile(fn, backend=cnts)
        opt_fn(torch.randn(4), d)
        opt_fn(torch.randn(4), d)
        # No recompilation
        self.assertEqual(cnts.frame_count, 1)

        # move 2 to the end
        d[2] = d.pop(2)

        x = torch.randn(4)
        res = opt_fn(x, d)
        # Check recompilation
        self.assertEqual(cnts.frame_count, 2)
        self.assertEqual(res, fn(x, d))

    def test_dict_guard_on_keys_order2(self):
        d = {
            2: 4,
            3: 5,
        }

        cnts = torch._dynamo.testing.CompileCounter()

        def fn(x, d):
            for key in d:
                value = d[key]
                x = x * key + value
            return x

        opt_fn = torch.compile(fn, backend=cnts)
        opt_fn(torch.randn(4), d)
        opt_fn(torch.randn(4), d)
        # No recompilation
        self.assertEqual(cnts.frame_count, 1)

        # move 2 to the end
        d[2] = d.pop(2)

        x = torch.randn(4)
        res = opt_fn(x, d)
        # Check recompilation
        self.assertEqual(cnts.frame_count, 2)
        self.assertEqual(res, fn(x, d))

    def test_ordered_dict_reordered_keys(self):
        d = OrderedDict()
        d[2] = 4
        d[3] = 5
        d.move_to_end(2)

        cnts = torch._dynamo.testing.CompileCounter()

        def fn(x, d):
            y = 0
            for idx, value in enumerate(d.values()):
                if idx == 0:
                    y += torch.sin(x * value)
                else:
                    y += torch.cos(x * value)
            return y

        opt_fn = torch.compile(fn, backend=cnts)
        x = torch.randn(4)
        self.assertEqual(opt_fn(x, d), fn(x, d))

    def test_ordered_dict_subclass_reordered_keys(self):
        class ODSubclass(OrderedDict):
            def keys(self):
                return super().keys()

        d = ODSubclass()
        d[2] = 4
        d[3] = 5
        d.move_to_end(2)

        cnts = torch._dynamo.testing.CompileCounter()

        def fn(x, d):
            y = 0
            for idx, value in enumerate(d.values()):
                if idx == 0:
                    y += torch.sin(x * value)
                else:
                    y += torch.cos(x * value)
            return y

        opt_fn = torch.compile(fn, backend=cnts)
        x = torch.randn(4)
        self.assertEqual(opt_fn(x, d), fn(x, d))

    def test_lazy_key_guarding(self):
        d = {"a": 2, "b": 3, "c": 5}

        def fn(x):
            return x * d["a"]

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

        x = torch.randn(4)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(ref, res)

        # Since key c was not used, it should not lead to a recompilation
        d.pop("c")
        d["d"] = 10

        with unittest.mock.patch("torch._dynamo.config.error_on_recompile", True):
            ref = fn(x)
            res = opt_fn(x)
            self.assertEqual(ref, res)

    def test_lazy_key_non_const_guarding(self):
        d = {
            list: 2,
            dict: 3,
            OrderedDict: 5,
            namedtuple: 7,
        }

        def fn(x):
            return x * d[list]

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

        x = torch.randn(4)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(ref, res)

        # Since key c was not used, it should not lead to a recompilation
        d.pop(dict)
        d[defaultdict] = 10

        with unittest.mock.patch("torch._dynamo.config.error_on_recompile", True):
            ref = fn(x)
            res = opt_fn(x)
            self.assertEqual(ref, res)

    def test_dict_mutation_side_effect(self):
        def fn(d):
            d["c"] = d["a"] + d.pop("b")
            return d

        args1 = {"a": torch.randn(10), "b": torch.randn(10)}
        args2 = dict(args1)
        if fn(args1) is not args1:
            raise AssertionError("Expected fn(args1) to be args1")
        cnts = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnts)
        self.assertIs(opt_fn(args2), args2)
        self.assertTrue(same(args1, args2))
        self.assertEqual(cnts.frame_count, 1)
        self.assertEqual(cnts.op_count, 1)

    def test_dict_copy_alias(self):
        @torch.compile(backend="eager", fullgraph=True)
        def run(x, d0):
            d1 = d0.copy()
            d1[0] = 1
            return x + 1, d1

        d0 = {}
        res, d1 = run(torch.zeros(1), d0)
        self.assertTrue(same(res, torch.ones(1)))
        self.assertEqual(d0, {})
        self.assertEqual(d1, {0: 1})

    def test_dict_subclass_get_method(self):
        class dotdict(dict):
            """dot.notation access to dictionary attributes"""

            __getattr__ = dict.get
            __setattr__ = dict.__setitem__
            __delattr__ = dict.__delitem__

        config = dotdict({"a": 1, "b": 2})

        def fn(x):
            x2 = x * 2  # noqa: F841
            x3 = x * config.get("a", 3)
            return x3

        x = torch.randn(2)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_order_keys(self):
        def fn(d):
            c = 0
            for v in d.values():
                c += v
            return c

        args1 = {}
        args1["a"] = torch.rand(10)
        args1["b"] = torch.rand(10)
        cnts = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnts)
        self.assertEqual(fn(args1), opt_fn(args1))
        self.assertEqual(cnts.frame_count, 1)
        self.assertEqual(cnts.op_count, 2)

        # A different order of keys recompiles
        args2 = {}
        args2["b"] = args1["b"]
        args2["a"] = args1["a"]
        self.assertEqual(fn(args2), opt_fn(args2))
        self.assertEqual(cnts.frame_count, 2)
        # Extra calls don't recompile
        self.assertEqual(cnts.frame_count, 2)

    def test_dict_namedtuple(self):
        def fn(d):
            if namedtuple in d:
                return d[3] * 2
            else:
                return d[3] * 3

        args1 = {namedtuple: None, 3: torch.randn(3)}
        cnts = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnts, fullgraph=True)
        self.assertEqual(fn(args1), opt_fn(args1))
        self.assertEqual(cnts.frame_count, 1)
        # Test a failing namedtuple guard
        args2 = {2: None, 3: torch.randn(3)}
        self.assertEqual(fn(args2), opt_fn(args2))
        self.assertEqual(cnts.frame_count, 2)

    def test_dict_order_keys_tensors(self):
        def fn(d, x):
            return d[x] + 3

        args1 = {}
        x = torch.randn(10)
        y = torch.randn(10)
        z = torch.randn(10)
        args1[x] = y
        args1[3] = z

        cnts = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnts, fullgraph=True)
        self.assertEqual(fn(args1, x), opt_fn(args1, x))
        self.assertEqual(cnts.frame_count, 1)

        # Calling again doesn't recompile (same id and key order)
        opt_fn(args1, x)
        self.assertEqual(cnts.frame_count, 1)
        args2 = {}
        args2[3] = z
        args2[x] = y

        # Different order recompiles
        self.assertEqual(fn(args2, x), opt_fn(args2, x))
        self.assertEqual(cnts.frame_count, 2)

    def test_dict_order_keys_modules(self):
        def fn(d, x):
            return d[x](torch.ones(2, 2))

        args1 = {}
        x = torch.nn.Linear(2, 2)
        y = torch.nn.Linear(2, 2)
        z = torch.nn.Linear(2, 2)
        args1[x] = y
        args1[3] = z

        cnts = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnts)
        self.assertEqual(fn(args1, x), opt_fn(args1, x))
        self.assertEqual(cnts.frame_count, 1)

        # Calling again doesn't recompile (same id and key order)
        opt_fn(args1, x)
        self.assertEqual(cnts.frame_count, 1)
        args2 = {}
        args2[3] = z
        args2[x] = y

        # Different order recompiles
        self.assertEqual(fn(args2, x), opt_fn(args2, x))
        self.assertEqual(cnts.frame_count, 2)

    def test_contains_dunder_dict(self):
        class UserDefined:
            def __init__(self) -> None:
                self.a = 3
                self.b = 5

            def run(self, x):
                if "a" in self.__dict__:
                    x = x * self.a
                if "b" in self.__dict__:
                    x = x * self.b
                self.c = 7
                if "c" in self.__dict__:
                    x = x * self.c
                return x * self.__dict__.get("a") * self.__dict__.get("z", 2)

        obj = UserDefined()

        def fn(x):
            return obj.run(x)

        x = torch.randn(4)
        ref = fn(x)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        res = opt_fn(x)
        self.assertEqual(ref, res)

    def test_len_dunder_dict_after_delete(self):
        # After deleting an attribute during tracing, len(obj.__dict__) must
        # reflect the deletion. The bug: SideEffectsProxyDict.__len__ returned
        # len(item_dict) + len(side_effects_table), double-counting deleted
        # entries and keys mutated from item_dict.
        class UserDefined:
            def __init__(self) -> None:
                self.a = 3
                self.b = 5

            def run(self, x):
                del self.a
                # len should be 1 (only b remains), not 3 (item_dict=2 + mutations=1)
                return x * len(self.__dict__)

        obj1 = UserDefined()
        obj2 = UserDefined()

        def fn(x, obj):
            return obj.run(x)

        x = torch.ones(2)
        ref = fn(x, obj1)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        res = opt_fn(x, obj2)
        self.assertEqual(ref, res)

    def test_contains_module_dunder_dict(self):
        class MyModule(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.foo = 1
                self.bar = 2
                self.baz = 3

            def forward(self, x):
                if "foo" in self.__dict__:
                    return x * self.bar
                return x * self.baz

        mod = MyModule()
        x = torch.randn(10)
        opt_mod = torch.compile(mod, backend="eager", fullgraph=True)
        self.assertEqual(mod(x), opt_mod(x))

    def test_update_dunder_dict(self):
        class UserDefined:
            def run(self, x):
                self.__dict__["a"] = 10
                return x * self.a + self.__dict__["a"]

        obj1 = UserDefined()
        obj2 = UserDefined()

        def fn(x, obj):
            return obj.run(x)

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        ref = fn(x, obj1)
        res = opt_fn(x, obj2)
        self.assertEqual(ref, res)
        # Make sure only `a` is updated.
        self.assertEqual(obj1.__dict__, obj2.__dict__)

    def test_update_module_dunder_dict(self):
        class MyModule(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()

            def forward(self, x):
                self.__dict__["a"] = 10
                return x * self.a + self.__dict__["a"]

        mod = MyModule()
        x = torch.randn(10)
        opt_mod = torch.compile(mod, backend="eager", fullgraph=True)
        self.assertEqual(mod(x), opt_mod(x))

    def test_dict_reconstruct_keeps_original_order(self):
        def fn():
            modules = OrderedDict([("act", torch.nn.ReLU())])
            module_dict = torch.nn.ModuleDict(modules)

            next_modules = {"fc4": torch.nn.Linear(5, 6), "act3": torch.nn.Sigmoid()}
            modules.update(next_modules.items())
            module_dict.update(next_modules)
            return modules, module_dict

        cnts = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnts)
        modules, module_dict = opt_fn()

        self.assertEqual(len(module_dict), len(modules))
        for k1, m2 in zip(modules, module_dict.children()):
            self.assertTrue(modules[k1] is m2)

    # FIXME: see comment in torch/_dynamo/polyfills/__init__.py:mutable_mapping_update
    @unittest.expectedFailure
    def test_dict_construct_from_mapping_like(self):
        def fn(x):
            fm = FakeMapping(x)
            d = dict(fm, x=x)
            return d

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_update_no_args(self):
        def fn(x):
            d = {"a": x}
            result = d.update()
            return d["a"], result is None, len(d)

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_update_from_mapping_like(self):
        class MappingLike:
            def __init__(self, x):
                self.d = {"a": x, "b": x + 1}

            def keys(self):
                return self.d.keys()

            def __getitem__(self, key):
                return self.d[key]

        def fn(x):
            d = {"a": x - 1}
            result = d.update(MappingLike(x))
            return d["a"], d["b"], result is None

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_update_from_mapping_proxy(self):
        def fn(x):
            source = {"a": x, "b": x + 1}
            d = {"a": x - 1}
            d.update(types.MappingProxyType(source))
            return d["a"], d["b"]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_dict_update_rejects_bad_sequence_element_length(self):
        def fn():
            try:
                {}.update([(1, 2, 3)])
            except ValueError as exc:
                return "length 3; 2 is required" in str(exc)
            return False

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(), opt_fn())

    def test_dict_update_rejects_too_many_args(self):
        def fn():
            try:
                {}.update({}, {})
            except TypeError:
                return True
            return False

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(), opt_fn())

    def test_dict_subclass_initialization_in_graph(self):
        for super_class in (
            OrderedDict,
            dict,
        ):

            class CustomDict(super_class):
                def __new__(cls, *args, **kwargs):
                    return super().__new__(cls, *args, **kwargs)

                def __init__(self, *args, **kwargs):
                    super().__init__(*args, **kwargs)

            def fn(x):
                c = CustomDict()
                c["key"] = x
                assert "key" in c  # noqa: S101
                return c["key"] + 1

            opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

            x = torch.rand(4)
            self.assertEqual(fn(x), opt_fn(x))

    def test_dict_list_values(self):
        def inner_fn(args):
            return [x[1].shape for x in args]

        @torch.compile(backend="eager")
        def fn(tensors):
            return inner_fn(zip(itertools.count(), tensors["args"]))

        fn({"args": [torch.ones(5, 5), torch.ones(5, 6), torch.ones(5, 7)]})
        fn({"args": [torch.ones(5, 5)]})

    def test_dict_iter(self):
        class MyMod(torch.nn.Module):
            def forward(self, x):
                z = {"my": 1, "const": 2, "dict": 3, "variable": 4}
                tot = 0
                for key in z:
                    tot += z[key]

                return tot

        x = torch.tensor([0])
        model = MyMod()
        opt_model = torch.compile(model, backend="eager", fullgraph=True)
        y = opt_model(x)

        self.assertEqual(y, 10)

    def test_dict_subclass_contains(self):
        # pattern from huggingface
        class ClassInstantier(OrderedDict):
            pass

        @torch.compile(fullgraph=True, backend="eager")
        def f(x, d):
            if "key1" in d:
                x = x + 2
            if "key2" in d:
                x = x + 4
            x = x + 8
            return x

        result = f(torch.ones(8), ClassInstantier({"key1": torch.ones(8)}))
        self.assertTrue(same(result, torch.full([8], 11.0)))

        result = f(torch.ones(8), ClassInstantier({"key2": torch.ones(8)}))
        self.assertTrue(same(result, torch.full([8], 13.0)))

    def test_dict_tag_guard(self):
        class Foo:
            def __init__(self) -> None:
                self.scalar = 10

        def fn(d, x):
            return d["a"] * d["b"] * d["c"].scalar * x

        foo = Foo()

        d = {"a": 2, "b": 3, "c": foo}

        opt_fn = torch.compile(fn, backend="eager")
        inp = torch.randn(3, 3)
        self.assertEqual(fn(d, inp), opt_fn(d, inp))

        d["a"] = 4
        self.assertEqual(fn(d, inp), opt_fn(d, inp))

        # Check that recompilation happens
        foo.scalar = 12
        self.assertEqual(fn(d, inp), opt_fn(d, inp))

    def test_empty_dict_recompilation(self):
        def fn(d, x):
            if d:
                return torch.cos(x)
            return torch.sin(x)

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        self.assertEqual(fn({}, x), opt_fn({}, x))
        self.assertEqual(fn({"a": 1}, x), opt_fn({"a": 1}, x))

    def test_udf_dict_reconstruction(self):
        class MyDict(dict):
            pass

        def fn(x, klass):
            x = x * 2
            sc_dict = dict.__new__(klass)
            sc_dict["x"] = x
            if isinstance(sc_dict, MyDict):
                sc_dict.attr = 3
            return sc_dict

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        ref = fn(x, MyDict)
        res = opt_fn(x, MyDict)
        self.assertEqual(ref, res)
        self.assertTrue(isinstance(res, MyDict))
        self.assertEqual(ref.attr, res.attr)

        ref = fn(x, dict)
        res = opt_fn(x, dict)
        self.assertEqual(ref, res)
        self.assertTrue(isinstance(res, dict))

    def test_weakref_dict(self):
        states = weakref.WeakKeyDictionary()

        mod1 = torch.nn.Module()
        mod2 = torch.nn.Module()

        states[mod1] = 2
        states[mod2] = 3

        def fn(x):
            if mod1 in states:
                x = torch.sin(x)
            if mod2 in states:
                x = torch.cos(x)
            return x

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        self.assertEqual(fn(x), opt_fn(x))

    def test_weakkeydict_attr_proxy_key(self):
        class Child(torch.nn.Module):
            def forward(self, x):
                return x.sin()

        class Root(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.child = Child()

        root = Root()
        tracer = _ModuleStackTracer(root)
        proxy = tracer.proxy_type(root.child, "child")
        states = weakref.WeakKeyDictionary({proxy: 1})

        def fn(d, key, x):
            offset = d[key]
            return key(x) + offset

        backend = torch._dynamo.testing.EagerAndRecordGraphs()
        opt_fn = torch.compile(fn, backend=backend, fullgraph=True)
        x = torch.randn(4)
        self.assertEqual(fn(states, proxy, x), opt_fn(states, proxy, x))

        sin_node = next(
            node for node in backend.graphs[0].graph.nodes if node.name == "sin"
        )
        module_paths = [path for path, _ in sin_node.meta["nn_module_stack"].values()]
        key_source = (
            "L['args'][1]"
            if torch._dynamo.config.debug_force_nested_calls
            else "L['key']"
        )
        self.assertEqual(module_paths, [f"{key_source}.get_base()"])

    def test_attr_proxy_cross_scope_reuse_guard(self):
        class Cell(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.value = torch.tensor(-1.0)

        first = Cell()
        second = Cell()
        tracer = _ModuleStackTracer(torch.nn.Module())
        local_proxy = tracer.proxy_type(first, "local")
        global_proxy = tracer.proxy_type(first, "global")
        other_global_proxy = tracer.proxy_type(second, "other")

        def local_proxy_first(proxy, x):
            proxy.value = x
            return _attr_proxy_global.value + 1  # noqa: F821

        counter = torch._dynamo.testing.CompileCounter()
        with patch.dict(
            local_proxy_first.__globals__, {"_attr_proxy_global": global_proxy}
        ):
            opt_fn = torch.compile(local_proxy_first, backend=counter, fullgraph=True)

            self.assertEqual(opt_fn(local_proxy, torch.tensor(2.0)), torch.tensor(3.0))
            self.assertEqual(counter.frame_count, 1)

            local_proxy_first.__globals__["_attr_proxy_global"] = other_global_proxy
            first.value = torch.tensor(-1.0)
            second.value = torch.tensor(-1.0)

            self.assertEqual(opt_fn(local_proxy, torch.tensor(5.0)), torch.tensor(0.0))
            self.assertEqual(counter.frame_count, 2)

        def global_proxy_first(module, x):
            _attr_proxy_global.value = x  # noqa: F821
            return module.value + 1

        counter = torch._dynamo.testing.CompileCounter()
        with patch.dict(
            global_proxy_first.__globals__, {"_attr_proxy_global": global_proxy}
        ):
            opt_fn = torch.compile(global_proxy_first, backend=counter, fullgraph=True)

            self.assertEqual(opt_fn(first, torch.tensor(2.0)), torch.tensor(3.0))
            self.assertEqual(counter.frame_count, 1)

            first.value = torch.tensor(-1.0)
            second.value = torch.tensor(-1.0)

            self.assertEqual(opt_fn(second, torch.tensor(5.0)), torch.tensor(0.0))
            self.assertEqual(counter.frame_count, 2)

    def test_construct_user_dict_and_return(self):
        def fn(x):
            return DummyUserDict({"a": x + 1})

        x = torch.randn(4)
        res = fn(x)
        self.assertEqual(res["a"], x + 1)

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(res["a"], opt_fn(x)["a"])

    def test_mapping_proxy_for_local(self):
        def fn(x):
            d = {"a": 2, "b": 3, "c": 5 * x}
            mp = types.MappingProxyType(d)
            y = torch.sin(x * mp["a"])
            for v in mp.values():
                y += torch.cos(x * v)
            return mp

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(ref, res)
        self.assertTrue(type(res) is types.MappingProxyType)

    def test_mapping_proxy_for_nonlocal(self):
        d = {"a": 2, "b": 3, "c": 5}

        def fn(x):
            mp = types.MappingProxyType(d)
            y = torch.sin(x * mp["a"])
            for v in mp.values():
                y += torch.cos(x * v)
            d["d"] = 4
            return mp

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(ref, res)
        self.assertTrue(type(res) is types.MappingProxyType)

        # check update to d is reflected in res
        d["e"] = 5
        self.assertEqual(d["e"], res["e"])

    def test_mapping_proxy_existing(self):
        d = {"a": 2, "b": 3, "c": 5}

        def fn(x, mp):
            y = torch.sin(x * mp["a"])
            for v in mp.values():
                y += torch.cos(x * v)
            if isinstance(mp, types.MappingProxyType):
                y *= 2
            return y

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        mp = types.MappingProxyType(d)
        ref = fn(x, mp)
        res = opt_fn(x, mp)
        self.assertEqual(ref, res)

        d["a"] = 3
        ref = fn(x, mp)
        res = opt_fn(x, mp)
        self.assertEqual(ref, res)

        d.pop("b")
        ref = fn(x, mp)
        res = opt_fn(x, mp)
        self.assertEqual(ref, res)

    def test_dict_construction_from_mapping_proxy(self):
        d = {"a": 2, "b": 3, "c": 5}

        def fn(x, mp):
            d = dict(mp)
            y = torch.sin(x * d["a"])
            return y

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        mp = types.MappingProxyType(d)
        ref = fn(x, mp)
        res = opt_fn(x, mp)
        self.assertEqual(ref, res)

    def test_mapping_proxy_existing_mutation(self):
        d = {"a": 2, "b": 3, "c": 5}

        mp = types.MappingProxyType(d)

        def fn(x):
            d["d"] = 4
            y = torch.sin(x * mp["d"])
            return y

        opt_fn = torch.compile(fn, backend="eager")
        x = torch.randn(4)
        ref = torch.sin(x * 4)
        res = opt_fn(x)
        self.assertEqual(ref, res)
        self.assertEqual(d.keys(), mp.keys())

    def test_mapping_proxy_existing_local_mutation(self):
        d = {"a": 2, "b": 3, "c": 5}

        mp = types.MappingProxyType(d)

        def fn(x):
            # Dynamo should not cause a graph break here because it knows that
            # the existing proxy can't point to this new dict
            other_dict = {}
            other_dict["d"] = 4
            y = torch.sin(x * mp["c"])
            return y

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        ref = torch.sin(x * mp["c"])
        res = opt_fn(x)
        self.assertEqual(ref, res)
        self.assertEqual(d.keys(), mp.keys())

    def test_dict_view_mapping(self):
        # dict_keys/values/items expose a read-only mappingproxy via .mapping
        mappingproxy = type(type.__dict__)

        def fn(x):
            d = {"a": 1, "b": 2}
            m_keys = d.keys().mapping
            m_values = d.values().mapping
            m_items = d.items().mapping
            y = torch.sin(x)
            for m in (m_keys, m_values, m_items):
                if isinstance(m, mappingproxy) and m == d:
                    y = y + 1
            return y, m_keys, m_values, m_items

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(ref[0], res[0])
        for m in res[1:]:
            self.assertTrue(type(m) is mappingproxy)
            self.assertEqual(m, {"a": 1, "b": 2})

    def test_dict_view_mapping_reflects_mutation(self):
        # The mappingproxy returned by .mapping proxies the live dict, so a
        # later mutation must be visible through it.
        mappingproxy = type(type.__dict__)

        def fn(x):
            d = {}
            m = d.keys().mapping
            d["foo"] = "bar"
            return torch.sin(x), isinstance(m, mappingproxy), dict(m)

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        ref = fn(x)
        res = opt_fn(x)
        self.assertEqual(ref[0], res[0])
        self.assertTrue(res[1])
        self.assertEqual(res[2], {"foo": "bar"})

    def test_move_to_end(self):
        def fn(x):
            d = OrderedDict({"a": torch.cos(x), "b": 3, "c": 5})
            d.move_to_end("a")
            return d

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        self.assertEqual(["b", "c", "a"], list(opt_fn(x).keys()))
        self.assertEqual(fn(x), opt_fn(x))

    def test_mapping_proxy_ban_muation_on_dict_realization(self):
        def fn(x):
            class Foo:
                b = 4

            d = dict(Foo.__dict__)
            y = torch.sin(x) * d["b"]
            # This should cause a graph break, because otherwise the
            # Foo.__dict__ will not be updated.
            Foo.bar = 3
            return Foo, y * Foo.__dict__["bar"]

        opt_fn = torch.compile(fn, backend="eager")
        x = torch.randn(4)
        foo1, ref = fn(x)
        foo2, res = opt_fn(x)
        self.assertEqual(ref, res)
        self.assertEqual(foo1.bar, foo2.bar)

    def test_overridden_get_item(self):
        class MyDict(dict):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.calls = 0

            def __getitem__(self, key):
                self.calls += 1
                return super().__getitem__(key) + 1

        def fn(x, d):
            d["d"] = 4
            return x * d["a"] + d["b"] + d["c"] + d["d"]

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        x = torch.randn(4)
        d1 = MyDict({"a": 2, "b": 3, "c": 5})
        ref = fn(x, d1)

        d2 = MyDict({"a": 2, "b": 3, "c": 5})
        res = opt_fn(x, d2)
        self.assertEqual(ref, res)
        self.assertEqual(d1.calls, d2.calls)

    def test_items_type(self):
        def fn():
            d = dict({"a": 1, "b": "2", "c": torch.tensor(3)})  # noqa: C418
            return d.items()

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        ref = fn()
        res = opt_fn()
        self.assertEqual(ref, res)
        self.assertEqual(type(res), dict_items)

    def test_builtin_or_with_invalid_types(self):
        args = (
            1,  # int
            1.0,  # float
            "a",  # str
            (1, 2),  # tuple
            [1, 2],  # list
        )

        @torch.compile(backend="eager", fullgraph=True)
        def fn(b: Any):
            a = {"one": torch.ones(1)}
            return a | b

        for arg in args:
            with self.assertRaises(Unsupported):
                _ = fn(arg)

    def test_builtin_or_with_diff_keys(self):
        def f():
            a = {"one": torch.ones(1)}
            b = {"two": torch.ones(2)}
            return a, b, a | b, b | a, a.__or__(b), b.__or__(a)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    def test_builtin_or_with_same_keys(self):
        def f():
            a = {"one": torch.ones(1), "two": torch.ones(2)}
            b = {"one": torch.ones(1), "three": torch.ones(3)}
            return a, b, a | b, b | a, a.__or__(b), b.__or__(a)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    def test_builtin_ior_(self):
        def f():
            a = {"one": torch.ones(1)}
            b = {"two": torch.ones(2)}
            a |= b
            return a, b

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    def test_defaultdict_inplace_union_preserves_factory(self):
        def f():
            d = defaultdict(int, {1: 1, 2: 2})
            d |= [(0, "zero"), (1, "one")]
            result = d.__ior__({3: "three"})
            return (
                result is d,
                d.default_factory is int,
                type(d) is defaultdict,
                dict(d),
                list(d),
                d[4],
            )

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    def test_defaultdict_shallow_copy_preserves_factory(self):
        # defaultdict.copy(), dd.__copy__(), and copy.copy(dd) all produce a
        # new defaultdict with the same default_factory and a shallow copy of
        # the contents. The copies are consumed in-graph because reconstructing
        # an escaping sourceless defaultdict is a separate unsupported case.
        import copy

        def f():
            d = defaultdict(list, {1: 1, 2: 2})
            c1 = d.copy()
            c2 = d.__copy__()
            c3 = copy.copy(d)
            return (
                c1.default_factory is list,
                c2.default_factory is list,
                c3.default_factory is list,
                dict(c1),
                dict(c2),
                dict(c3),
                c1 == d,
                c3 == d,
                c1[5],
            )

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    def test_newly_constructed_default_dict(self):
        def f(x):
            d = defaultdict(list)
            d[0] = [
                42,
            ]
            return x + 1, d

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)

        self.assertEqual(ref, res)

    def test_newly_constructed_default_dict_no_default_factory(self):
        def f1(x):
            d = defaultdict()
            try:
                d[1] += 42
            except KeyError:
                d[1] = 1
            return x + 1, d

        x = torch.ones(2)
        ref = f1(x)
        res = torch.compile(f1, backend="eager", fullgraph=True)(x)

        self.assertEqual(ref, res)

        def f2(x):
            d = defaultdict(None)
            try:
                d[1] += 42
            except KeyError:
                d[1] = 1
            return x + 1, d

        ref = f2(x)
        res = torch.compile(f2, backend="eager", fullgraph=True)(x)
        self.assertEqual(ref, res)

        def f3(x):
            d = defaultdict(None, {1: 10})
            d[1] += 42
            try:
                d[2] += 24
            except KeyError:
                d[2] = 1
            return x + 1, d

        ref = f3(x)
        res = torch.compile(f3, backend="eager", fullgraph=True)(x)
        self.assertEqual(ref, res)

    def test_newly_constructed_default_dict_with_dict(self):
        def f(x):
            d = dict([("a", 1), ("b", 2)], c=3)
            dd = defaultdict(list, d, d=4, e=5)
            dd["x"].append(42)
            return x + 1, d, dd

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)

        self.assertEqual(ref, res)

    def test_iter_default_dict(self):
        def f(x):
            d = defaultdict(list)
            d[0] = 42
            for k in d:
                d[k] += 1
            return x + 1, d

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)

        self.assertEqual(ref, res)

    def test_dict_new_ignores_extra_args(self):
        """dict.__new__ ignores extra args (CPython behavior).

        This matters for instantiate_user_defined_class_object which calls
        cls.__new__(cls, *args, **kwargs) — dict.__new__ should not fail
        on the extra args.
        """

        def f(x):
            od = OrderedDict(a=1, b=2)
            return x + od["a"]

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)
        self.assertEqual(ref, res)

    def test_ordered_dict_repr(self):
        """repr() on OrderedDictVariable should not graph break."""

        def f(x):
            od = OrderedDict(a=1, b=2)
            r = repr(od)
            # Just verify repr doesn't graph break and returns a string
            return x + (1 if isinstance(r, str) else 0)

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)
        self.assertEqual(ref, res)

    def test_c_new_init_args_ignored_for_dict(self):
        """C-level __new__ for dict/set passes init_args=[] since they
        ignore extra args. This ensures generators passed to OrderedDict()
        don't end up in reconstruction."""

        def whoo(t):
            yield 1, t + 1
            yield 2, t + 2

        def f(t):
            return OrderedDict(whoo(t))

        t = torch.randn(2)
        ref = f(t)
        res = torch.compile(f, backend="eager", fullgraph=True)(t)
        self.assertEqual(ref, res)

    def test_ordered_dict_as_python_constant_preserves_type(self):
        """as_python_constant should return OrderedDict, not plain dict."""

        def f(x):
            od = OrderedDict(a=1, b=2)
            # Enum functional API calls as_python_constant on the OrderedDict
            import enum

            E = enum.Enum("E", od)
            return x + E.a.value

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)
        self.assertEqual(ref, res)

    def test_default_dict_as_python_constant_preserves_type(self):
        """as_python_constant should return defaultdict, not plain dict."""

        def f(x):
            dd = defaultdict(int, a=1, b=2)
            # isinstance triggers as_python_constant internally for
            # constant folding the type check
            assert isinstance(dd, defaultdict)  # noqa: S101
            return x + dd["a"]

        x = torch.ones(2)
        ref = f(x)
        res = torch.compile(f, backend="eager", fullgraph=True)(x)
        self.assertEqual(ref, res)

    @parametrize("op", ["or_", "and_", "xor", "sub"])
    def test_dict_keys_binop(self, op):
        op = getattr(operator, op)

        def f():
            a = {"one": torch.ones(1), "two": torch.ones(2)}
            b = {"one": torch.ones(1), "three": torch.ones(3)}
            return op(a.keys(), b.keys()), op(b.keys(), a.keys())

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["ior", "iand", "ixor", "isub"])
    def test_dict_keys_inplace_binop(self, op):
        op = getattr(operator, op)

        def f():
            a = {"one": torch.ones(1), "two": torch.ones(2)}.keys()
            b = {"one": torch.ones(1), "three": torch.ones(3)}.keys()
            c = {"one": torch.ones(1), "two": torch.ones(2)}.keys()
            a = op(a, b)
            b = op(b, c)
            return a, b

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub"])
    def test_dict_items_binop(self, op):
        op = getattr(operator, op)

        def f():
            a = {"one": 1, "two": 2}
            b = {"one": 1, "three": 3}
            return op(a.items(), b.items()), op(b.items(), a.items())

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["ior", "iand", "ixor", "isub"])
    def test_dict_items_inplace_binop(self, op):
        op = getattr(operator, op)

        def f():
            a = {"one": 1, "two": 2}.items()
            b = {"one": 1, "three": 3}.items()
            c = {"one": 1, "two": 2}.items()
            a = op(a, b)
            b = op(b, c)
            return a, b

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub", "iand", "ior", "ixor", "isub"])
    def test_cross_type_set_binop_dict_keys_vs_set(self, op):
        op = getattr(operator, op)

        def f():
            keys = {"one": 1, "two": 2, "three": 3}.keys()
            s = {"one", "four"}
            return op(keys, s), op(s, keys)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub", "iand", "ior", "ixor", "isub"])
    def test_cross_type_set_binop_dict_items_vs_set(self, op):
        op = getattr(operator, op)

        def f():
            items = {"one": 1, "two": 2}.items()
            s = {("one", 1), ("three", 3)}
            return op(items, s), op(s, items)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub", "iand", "ior", "ixor", "isub"])
    def test_cross_type_set_binop_dict_keys_vs_dict_items(self, op):
        op = getattr(operator, op)

        def f():
            keys = {"one": 1, "two": 2}.keys()
            items = {"three": 3, "four": 4}.items()
            return op(keys, items), op(items, keys)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub", "iand", "ior", "ixor", "isub"])
    def test_cross_type_set_binop_dict_keys_vs_user_defined_set(self, op):
        class MySet(set):
            pass

        op = getattr(operator, op)

        def f():
            keys = {"one": 1, "two": 2, "three": 3}.keys()
            s = MySet({"one", "four"})
            return op(keys, s), op(s, keys)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub", "iand", "ior", "ixor", "isub"])
    def test_cross_type_set_binop_dict_items_vs_user_defined_set(self, op):
        class MySet(set):
            pass

        op = getattr(operator, op)

        def f():
            items = {"one": 1, "two": 2, "three": 3}.items()
            s = MySet({"one", "four"})
            return op(items, s), op(s, items)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["or_", "and_", "xor", "sub", "iand", "ior", "ixor", "isub"])
    def test_cross_type_set_binop_set_vs_user_defined_set(self, op):
        class MySet(set):
            pass

        op = getattr(operator, op)

        def f():
            s = {"one", "two", "three"}
            u = MySet({"one", "four"})
            return op(s, u), op(u, s)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
    def test_cross_type_cmp_dict_keys_vs_set(self, op):
        op = getattr(operator, op)

        def f():
            keys = {"one": 1, "two": 2}.keys()
            s = {"one", "two", "three"}
            return op(keys, s), op(s, keys)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
    def test_cross_type_cmp_dict_items_vs_set(self, op):
        op = getattr(operator, op)

        def f():
            items = {"one": 1, "two": 2}.items()
            s = {("one", 1), ("two", 2), ("three", 3)}
            return op(items, s), op(s, items)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
    def test_cross_type_cmp_dict_keys_vs_dict_items(self, op):
        op = getattr(operator, op)

        def f():
            keys = {"one": 1, "two": 2}.keys()
            items = {"one": 1, "two": 2}.items()
            return op(keys, items), op(items, keys)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
    def test_cross_type_cmp_set_vs_user_defined_set(self, op):
        class MySet(set):
            pass

        op = getattr(operator, op)

        def f():
            s = {"one", "two"}
            u = MySet({"one", "two", "three"})
            return op(s, u), op(u, s)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
    def test_cross_type_cmp_dict_keys_vs_user_defined_set(self, op):
        class MySet(set):
            pass

        op = getattr(operator, op)

        def f():
            keys = {"one": 1, "two": 2}.keys()
            u = MySet({"one", "two", "three"})
            return op(keys, u), op(u, keys)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    @parametrize("op", ["lt", "le", "gt", "ge", "eq", "ne"])
    def test_cross_type_cmp_dict_items_vs_user_defined_set(self, op):
        class MySet(set):
            pass

        op = getattr(operator, op)

        def f():
            items = {"one": 1, "two": 2}.items()
            u = MySet({("one", 1), ("two", 2), ("three", 3)})
            return op(items, u), op(u, items)

        opt_f = torch.compile(f, backend="eager", fullgraph=True)
        self.assertEqual(f(), opt_f())

    def test_dict_view_iand_rebinds_variable(self):
        def f_keys():
            d = {"one": 1, "two": 2, "three": 3}
            tmp = d.keys()
            tmp &= {"one", "four"}
            return tmp, d

        opt_f_keys = torch.compile(f_keys, backend="eager", fullgraph=True)
        eager_tmp, eager_d = f_keys()
        compiled_tmp, compiled_d = opt_f_keys()
        self.assertIsInstance(eager_tmp, set)
        self.assertEqual(eager_tmp, compiled_tmp)
        self.assertEqual(eager_d, compiled_d)

        def f_items():
            d = {"one": 1, "two": 2}
            tmp = d.items()
            tmp &= {("one", 1), ("three", 3)}
            return tmp, d

        opt_f_items = torch.compile(f_items, backend="eager", fullgraph=True)
        eager_tmp, eager_d = f_items()
        compiled_tmp, compiled_d = opt_f_items()
        self.assertIsInstance(eager_tmp, set)
        self.assertEqual(eager_tmp, compiled_tmp)
        self.assertEqual(eager_d, compiled_d)

    def test_dict_union_result_type(self):
        def_dict = defaultdict(int, {1: 1, 2: 2})
        ord_dict = OrderedDict({3: 3, 4: 4})
        base_dict = {5: 5, 6: 6}

        exp_def = def_dict | ord_dict
        self.assertIsInstance(exp_def, defaultdict)

        exp_def_2 = def_dict | base_dict
        self.assertIsInstance(exp_def_2, defaultdict)

        exp_def_3 = base_dict | def_dict
        self.assertIsInstance(exp_def_3, defaultdict)

        exp_ord = ord_dict | def_dict
        self.assertIsInstance(exp_ord, OrderedDict)

        exp_ord_2 = base_dict | ord_dict
        self.assertIsInstance(exp_ord_2, OrderedDict)

        exp_base = base_dict | base_dict
        self.assertIsInstance(exp_base, dict)

    def test_range_as_dict_key(self):
        def fn(x):
            d = {range(5): x * 2, range(10, 15): x * 3}
            return d[range(0, 5, 1)] + d[range(10, 15)]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_tuple_as_dict_key(self):
        def fn(x):
            d = {(1, 2): x * 2, (3, 4, 5): x * 3}
            return d[(1, 2)] + d[(3, 4, 5)]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_enum_as_dict_key(self):
        class Color(enum.Enum):
            RED = 1
            GREEN = 2
            BLUE = 3

        def fn(x):
            d = {Color.RED: x * 2, Color.GREEN: x * 3, Color.BLUE: x * 4}
            return d[Color.RED] + d[Color.GREEN] + d[Color.BLUE]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_intenum_as_dict_key(self):
        class Priority(enum.IntEnum):
            LOW = 1
            MEDIUM = 2
            HIGH = 3

        def fn(x):
            d = {Priority.LOW: x * 2, Priority.MEDIUM: x * 3, Priority.HIGH: x * 4}
            return d[Priority.LOW] + d[Priority.MEDIUM] + d[Priority.HIGH]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_frozenset_as_dict_key(self):
        def fn(x):
            d = {frozenset([1, 2]): x * 2, frozenset([3, 4, 5]): x * 3}
            return d[frozenset([1, 2])] + d[frozenset([3, 4, 5])]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_typing_union_as_dict_key(self):
        from typing import Union

        def fn(x):
            d = {Union[int, str]: x * 2, Union[float, bool]: x * 3}  # noqa: UP007
            return d[Union[int, str]] + d[Union[float, bool]]  # noqa: UP007

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_numpy_dtype_as_dict_key(self):
        import numpy as np

        def fn(x):
            d = {np.float32: x * 2, np.int64: x * 3, np.bool_: x * 4}
            return d[np.float32] + d[np.int64] + d[np.bool_]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_method_wrapper_as_dict_key(self):
        add_method = list.__add__
        mul_method = list.__mul__

        def fn(x):
            # Method wrappers are the type of bound methods on built-in types
            d = {add_method: x * 2, mul_method: x * 3}
            return d[add_method] + d[mul_method]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_torch_builtin_function_as_dict_key(self):
        def fn(x, y):
            # Using torch built-in functions as dictionary keys
            d = {torch.add: x * 2, torch.mul: y * 3, torch.sub: x + y}
            return d[torch.add] + d[torch.mul] + d[torch.sub]

        x = torch.randn(4)
        y = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x, y), opt_fn(x, y))

    def test_frozen_dataclass_as_dict_key(self):
        from dataclasses import dataclass

        @dataclass(frozen=True)
        class Point:
            x: int
            y: int

        def fn(tensor):
            p1 = Point(1, 2)
            p2 = Point(3, 4)
            d = {p1: tensor * 2, p2: tensor * 3}
            return d[Point(1, 2)] + d[Point(3, 4)]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_list_as_dict_key_raises_typeerror(self):
        def fn(x):
            d = {[1, 2, 3]: x * 2}
            return d[[1, 2, 3]]

        x = torch.randn(4)

        # First check that eager execution raises TypeError
        with self.assertRaises(TypeError):
            fn(x)

        # Also check that compiled version raises TypeError
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        with self.assertRaisesRegex(Unsupported, "Observed exception"):
            opt_fn(x)

    def test_property_backed_by_dunder_dict(self):
        class Obj:
            def __init__(self, x):
                self.__dict__["x"] = x

            @property
            def x(self):
                return self.__dict__["x"]

        def fn(obj):
            return obj.x

        obj = Obj(3)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(obj), opt_fn(obj))

    def test_property_backed_by_dunder_dict_mutated(self):
        class Obj:
            def __init__(self, x):
                self.__dict__["x"] = x

            @property
            def x(self):
                return self.__dict__["x"]

            @x.setter
            def x(self, value):
                self.__dict__["x"] = value

        def fn(obj):
            a = obj.x
            obj.x = a + 1
            return obj.x

        obj = Obj(3)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(Obj(3)), opt_fn(obj))

    def test_property_backed_by_dunder_dict_pending_side_effects(self):
        class Obj:
            def __init__(self, x):
                self.__dict__["x"] = x

            @property
            def x(self):
                return self.__dict__["x"]

        def fn(obj):
            a = obj.__dict__["x"]
            obj.__dict__["x"] = a + 1
            return obj.__dict__["x"]

        obj = Obj(3)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(Obj(3)), opt_fn(obj))

    def test_dunder_dict_getitem_guard_recompiles(self):
        class Obj:
            def __init__(self):
                self.__dict__["x"] = 3

            @property
            def x(self):
                return 999

        def fn(obj, t):
            return t + obj.__dict__["x"]

        obj = Obj()
        t = torch.tensor(0.0)
        cnt = torch._dynamo.testing.CompileCounter()
        opt_fn = torch.compile(fn, backend=cnt, fullgraph=True)
        self.assertEqual(opt_fn(obj, t), torch.tensor(3.0))
        self.assertEqual(cnt.frame_count, 1)

        obj.__dict__["x"] = 5
        self.assertEqual(opt_fn(obj, t), torch.tensor(5.0))
        self.assertEqual(cnt.frame_count, 2)

    def test_dunder_dict_get_with_property(self):
        class Obj:
            def __init__(self, x):
                self.__dict__["x"] = x

            @property
            def x(self):
                return self.__dict__["x"]

        def fn(obj):
            return obj.__dict__.get("x")

        obj = Obj(3)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(obj), opt_fn(obj))

    def test_dunder_dict_getitem_tensor(self):
        class Obj:
            def __init__(self, x):
                self.__dict__["x"] = x

            @property
            def x(self):
                return self.__dict__["x"]

        def fn(obj):
            return obj.x + 1

        obj = Obj(torch.tensor(3.0))
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(obj), opt_fn(obj))

    def test_get_default_nowrap_functions_as_dict_key(self):
        def fn(x):
            # Get the set of default nowrap functions
            nowrap_funcs = torch.overrides.get_default_nowrap_functions()
            # Use the set as a dict key and search for Tensor.grad.__get__ in it
            d = {frozenset(nowrap_funcs): x * 2}
            # Check if Tensor.grad.__get__ is in the set
            if torch.Tensor.grad.__get__ in nowrap_funcs:
                return d[frozenset(nowrap_funcs)] + x
            return x

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertEqual(fn(x), opt_fn(x))

    def test_custom_bool(self):
        class CustomBoolDict:
            def __init__(self, bool_result: bool):
                super().__init__()
                self._bool_result = bool_result

            def __bool__(self):
                return self._bool_result

        def fn(t: torch.Tensor, d, apply_not: bool):
            if apply_not:
                return t.sin(), bool(not d)
            else:
                return t.sin(), bool(d)

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

        t = CustomBoolDict(True)
        self.assertTrue(
            opt_fn(x, t, False)[1],
            "CustomBoolDict(True) should evaluate to True in boolean context",
        )
        self.assertFalse(
            opt_fn(x, t, True)[1],
            "not CustomBoolDict(True) should evaluate to False in boolean context",
        )

        f = CustomBoolDict(False)
        self.assertFalse(
            opt_fn(x, f, False)[1],
            "CustomBoolDict(False) should evaluate to False in boolean context",
        )
        self.assertTrue(
            opt_fn(x, f, True)[1],
            "not CustomBoolDict(False) should evaluate to True in boolean context",
        )

    def test_dict_order_canonical_aot_joint_graph(self):
        # Reversed input-dict traversal originally made cross-rank min-cut sync
        # unsafe. Compare the complete ordered node and edge signature that
        # reaches AOTAutograd, not only Dynamo's graph or partitioned outputs.
        from torch._dynamo.backends.common import aot_autograd
        from torch._dynamo.backends.debugging import boxed_nop
        from torch._functorch.partitioners import min_cut_rematerialization_partition
        from torch.fx.passes.canonicalize import (
            _stable_arg_key,
            _stable_kwarg_key,
            _stable_target_str,
        )

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.deep = torch.nn.Sequential(
                    torch.nn.Linear(8, 16),
                    torch.nn.ReLU(),
                    torch.nn.Linear(16, 16),
                )
                self.shallow = torch.nn.Linear(12, 16)

            def forward(self, d):
                results = {}
                for key, val in d.items():
                    if key == "a":
                        results[key] = self.deep(val)
                    else:
                        results[key] = self.shallow(val)
                return (results["a"] + results["b"]).sum()

        def graph_signature(graph):
            def node_key(input_node):
                return ("node", input_node.name)

            return tuple(
                (
                    node.name,
                    node.op,
                    _stable_target_str(node.target),
                    _stable_arg_key(node.args, node_key),
                    _stable_kwarg_key(node.kwargs, node_key),
                )
                for node in graph.nodes
            )

        def capture(model, inp):
            joint_signatures = []

            def partition_fn(gm, joint_inputs, **kwargs):
                # This hook receives the joint graph immediately before min-cut
                # partitioning, which later makes the cross-rank sync decision.
                joint_signatures.append(graph_signature(gm.graph))
                return min_cut_rematerialization_partition(gm, joint_inputs, **kwargs)

            backend = aot_autograd(
                fw_compiler=boxed_nop,
                bw_compiler=boxed_nop,
                partition_fn=partition_fn,
                keep_inference_input_mutations=True,
            )
            torch.compile(model, backend=backend)(inp).backward()
            self.assertEqual(len(joint_signatures), 1)
            return joint_signatures[0]

        model = Model()
        d1 = {"a": torch.randn(4, 8), "b": torch.randn(4, 12)}
        d2 = {"b": d1["b"], "a": d1["a"]}

        def capture_pair(canonicalize):
            signatures = []
            with (
                torch._dynamo.config.patch(
                    canonicalize_output_graph_node_order=canonicalize
                ),
                torch._functorch.config.patch(_sync_decision_cross_ranks=True),
            ):
                for inp in (d1, d2):
                    torch._dynamo.reset()
                    model.zero_grad()
                    signatures.append(capture(model, inp))
            return signatures

        graph1, graph2 = capture_pair(False)
        self.assertNotEqual(graph1, graph2)

        graph1, graph2 = capture_pair(True)
        self.assertEqual(graph1, graph2)

    def test_final_joint_canonical_names_preserve_barrier_order(self):
        from torch._functorch._aot_autograd.graph_compile import (
            _canonicalize_joint_graph,
        )

        def make_graph(independent_first):
            graph = fx.Graph()
            p1 = graph.placeholder("primals_1")
            p2 = graph.placeholder("primals_2")

            def collective_path():
                gathered = graph.call_function(
                    torch.ops._c10d_functional.all_gather_into_tensor.default,
                    (p1,),
                )
                waited = graph.call_function(
                    torch.ops._c10d_functional.wait_tensor.default, (gathered,)
                )
                dependent = graph.call_function(torch.ops.aten.relu.default, (waited,))
                return gathered, waited, dependent

            if independent_first:
                independent = graph.call_function(torch.ops.aten.relu.default, (p2,))
                gathered, waited, dependent = collective_path()
            else:
                gathered, waited, dependent = collective_path()
                independent = graph.call_function(torch.ops.aten.relu.default, (p2,))
            graph.output((waited, dependent, independent))
            gm = fx.GraphModule({}, graph)
            physical_order = list(graph.nodes)
            _canonicalize_joint_graph(gm)
            self.assertEqual(list(graph.nodes), physical_order)
            return (
                {
                    "gathered": gathered.name,
                    "waited": waited.name,
                    "dependent": dependent.name,
                    "independent": independent.name,
                },
                tuple(node is independent for node in graph.nodes),
            )

        names1, order1 = make_graph(True)
        names2, order2 = make_graph(False)
        self.assertEqual(names1, names2)
        self.assertNotEqual(order1, order2)

    def test_final_joint_canonical_names_distinguish_barrier_role(self):
        from torch._functorch._aot_autograd.graph_compile import (
            _canonicalize_joint_graph,
        )

        def make_graph(unsafe_first):
            graph = fx.Graph()
            primal = graph.placeholder("primal")

            def make_relu(unsafe):
                node = graph.call_function(torch.ops.aten.relu.default, (primal,))
                if unsafe:
                    node.meta["unbacked_bindings"] = {"u0": None}
                return node

            if unsafe_first:
                unsafe = make_relu(True)
                safe = make_relu(False)
            else:
                safe = make_relu(False)
                unsafe = make_relu(True)
            graph.output(primal)
            gm = fx.GraphModule({}, graph)
            physical_order = list(graph.nodes)
            _canonicalize_joint_graph(gm)
            self.assertEqual(list(graph.nodes), physical_order)
            return safe.name, unsafe.name

        self.assertEqual(make_graph(False), make_graph(True))

    def test_sync_recanonicalizes_after_late_joint_pass(self):
        from torch._functorch._aot_autograd.graph_compile import (
            _canonicalize_joint_graph,
            _enable_joint_graph_name_canonicalization,
        )
        from torch._functorch.partitioners import _sync_decision_cross_ranks

        def make_graph(relu_first):
            graph = fx.Graph()
            p1 = graph.placeholder("p1")
            p2 = graph.placeholder("p2")
            if relu_first:
                relu = graph.call_function(torch.ops.aten.relu.default, (p1,))
                neg = graph.call_function(torch.ops.aten.neg.default, (p2,))
            else:
                neg = graph.call_function(torch.ops.aten.neg.default, (p2,))
                relu = graph.call_function(torch.ops.aten.relu.default, (p1,))
            graph.output((relu, neg))
            gm = fx.GraphModule({}, graph)
            _canonicalize_joint_graph(gm)
            for ordinal, node in enumerate(graph.nodes):
                if node.op != "placeholder":
                    node.name = f"late_joint_pass_{ordinal}"
            physical_order = list(graph.nodes)
            with _enable_joint_graph_name_canonicalization(True):
                _sync_decision_cross_ranks(graph, [])
            self.assertEqual(list(graph.nodes), physical_order)
            return relu.name, neg.name

        self.assertEqual(make_graph(True), make_graph(False))

    def test_inductor_joint_pass_names_are_recanonicalized(self):
        from torch._dynamo.backends.common import aot_autograd
        from torch._dynamo.backends.debugging import boxed_nop
        from torch._functorch.partitioners import min_cut_rematerialization_partition
        from torch._inductor.compile_fx import partition_fn as inductor_partition_fn
        from torch._inductor.custom_graph_pass import CustomGraphPass
        from torch.fx.passes.canonicalize import (
            _stable_arg_key,
            _stable_kwarg_key,
            _stable_target_str,
        )

        class ScrambleNames(CustomGraphPass):
            def __init__(self, reverse):
                self.reverse = reverse

            def __call__(self, graph):
                nodes = [node for node in graph.nodes if node.op != "placeholder"]
                if self.reverse:
                    nodes.reverse()
                for ordinal, node in enumerate(nodes):
                    node.name = f"late_joint_pass_{ordinal}"

            def uuid(self):
                return f"scramble-names-{self.reverse}"

        class Model(torch.nn.Module):
            def forward(self, x):
                return x.sin().cos().sum()

        def graph_signature(graph):
            def node_key(input_node):
                return ("node", input_node.name)

            return tuple(
                (
                    node.name,
                    node.op,
                    _stable_target_str(node.target),
                    _stable_arg_key(node.args, node_key),
                    _stable_kwarg_key(node.kwargs, node_key),
                )
                for node in sorted(graph.nodes, key=lambda node: node.name)
            )

        def run(reverse):
            signatures = []

            def raw_partition(gm, joint_inputs, **kwargs):
                result = min_cut_rematerialization_partition(gm, joint_inputs, **kwargs)
                signatures.append(graph_signature(gm.graph))
                return result

            backend = aot_autograd(
                fw_compiler=boxed_nop,
                bw_compiler=boxed_nop,
                partition_fn=partial(
                    inductor_partition_fn,
                    partitioner_fn_override=raw_partition,
                ),
            )
            x = torch.randn(8, requires_grad=True)
            with (
                torch._dynamo.config.patch(canonicalize_output_graph_node_order=True),
                torch._functorch.config.patch(_sync_decision_cross_ranks=True),
                torch._inductor.config.patch(
                    joint_custom_post_pass=ScrambleNames(reverse)
                ),
            ):
                torch.compile(Model(), backend=backend, fullgraph=True)(x).backward()
            return signatures

        first = run(False)
        torch._dynamo.reset()
        second = run(True)
        self.assertEqual(len(first), 1)
        self.assertEqual(first, second)

    def test_canonical_signature_keys(self):
        from torch.fx.passes.canonicalize import (
            _arg_has_stable_identity,
            _stable_arg_key,
            _stable_kwarg_key,
        )

        node_key = object()

        def unused_node_key(_):
            return node_key

        def key(value):
            return _stable_arg_key(value, unused_node_key)

        self.assertNotEqual(key({"a": 1, "b": 2}), key({"b": 2, "a": 1}))
        self.assertEqual(
            _stable_kwarg_key({"a": 1, "b": 2}, unused_node_key),
            _stable_kwarg_key({"b": 2, "a": 1}, unused_node_key),
        )
        self.assertEqual(key(torch.device("cuda:0")), key(torch.device("cuda:1")))
        self.assertNotEqual(key(torch.Size([2, 3])), key((2, 3)))

        class Opaque:
            def __repr__(self):
                return "same"

        opaque1 = Opaque()
        opaque2 = Opaque()
        self.assertNotEqual(key(opaque1), key(opaque2))
        self.assertFalse(_arg_has_stable_identity(opaque1))
        self.assertTrue(_arg_has_stable_identity({"device": torch.device("cuda:1")}))

    def test_canonical_target_identity_fails_closed_for_local_callables(self):
        from torch.fx.passes.canonicalize import (
            _stable_target_str,
            _target_has_stable_identity,
        )

        def make_target(value):
            def target(x):
                return x + value

            return target

        target1 = make_target(1)
        target2 = make_target(2)
        self.assertNotEqual(_stable_target_str(target1), _stable_target_str(target2))
        self.assertFalse(_target_has_stable_identity(target1))
        self.assertEqual(_stable_target_str(torch.sym_not), "torch.sym_not")
        self.assertTrue(_target_has_stable_identity(torch.sym_not))

        class RaisingStrTarget:
            def __call__(self, x):
                return x

            def __str__(self):
                raise RuntimeError("must not stringify an unstable target")

        raising_target = RaisingStrTarget()
        self.assertFalse(_target_has_stable_identity(raising_target))
        self.assertIn("RaisingStrTarget", _stable_target_str(raising_target))

    @parametrize(
        "source_names,num_params_buffers,canonicalize,sync,is_export,compiled_autograd,expected",
        (
            (None, 0, True, True, False, False, False),
            ((), 0, True, True, False, False, True),
            (
                ("param_z", "param_a", "user_a", "user_b"),
                2,
                True,
                True,
                False,
                False,
                True,
            ),
            (
                ("param_z", "param_a", "user_b", "user_a"),
                2,
                True,
                True,
                False,
                False,
                False,
            ),
            (("user_a", None), 0, True, True, False, False, False),
            (("user_a",), -1, True, True, False, False, False),
            (("user_a",), 2, True, True, False, False, False),
            (("user_a",), 0, False, True, False, False, False),
            (("user_a",), 0, True, False, False, False, False),
            (("user_a",), 0, True, True, True, False, False),
            (("user_a",), 0, True, True, False, True, False),
        ),
    )
    def test_final_joint_canonicalization_source_gate(
        self,
        source_names,
        num_params_buffers,
        canonicalize,
        sync,
        is_export,
        compiled_autograd,
        expected,
    ):
        from torch._functorch._aot_autograd.graph_compile import (
            _has_source_canonicalized_dynamo_inputs,
        )

        sources = (
            None
            if source_names is None
            else [
                None if name is None else types.SimpleNamespace(name=name)
                for name in source_names
            ]
        )
        aot_config = types.SimpleNamespace(
            aot_autograd_arg_pos_to_source=sources,
            num_params_buffers=num_params_buffers,
            is_export=is_export,
        )
        with (
            torch._dynamo.config.patch(
                canonicalize_output_graph_node_order=canonicalize
            ),
            torch._functorch.config.patch(_sync_decision_cross_ranks=sync),
            patch.object(
                torch._dynamo.compiled_autograd,
                "in_compiled_autograd_region",
                compiled_autograd,
            ),
        ):
            self.assertEqual(
                _has_source_canonicalized_dynamo_inputs(aot_config), expected
            )

    def _get_graph_node_names(self, model, inp):
        backend = torch._dynamo.testing.EagerAndRecordGraphs()
        torch.compile(model, backend=backend)(inp)
        return [n.name for n in backend.graphs[0].graph.nodes]

    def test_dict_order_canonical_graph(self):
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.deep = torch.nn.Sequential(
                    torch.nn.Linear(8, 16),
                    torch.nn.ReLU(),
                    torch.nn.Linear(16, 16),
                )
                self.shallow = torch.nn.Linear(8, 16)

            def forward(self, d):
                results = []
                for key, val in d.items():
                    if key == "a":
                        results.append(self.deep(val))
                    else:
                        results.append(self.shallow(val))
                return torch.cat(results, dim=-1).sum()

        model = Model()
        d1 = {"a": torch.randn(4, 8), "b": torch.randn(4, 8)}
        d2 = {"b": torch.randn(4, 8), "a": torch.randn(4, 8)}

        names1 = self._get_graph_node_names(model, d1)
        torch._dynamo.reset()
        names2 = self._get_graph_node_names(model, d2)
        self.assertEqual(names1, names2)

    def test_canonical_graph_placeholder_sources(self):
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.deep = torch.nn.Sequential(
                    torch.nn.Linear(8, 16),
                    torch.nn.ReLU(),
                    torch.nn.Linear(16, 16),
                )
                self.shallow = torch.nn.Linear(8, 16)

            def forward(self, d):
                results = []
                for key, val in d.items():
                    if key == "a":
                        results.append(self.deep(val))
                    else:
                        results.append(self.shallow(val))
                return torch.cat(results, dim=-1)

        def placeholders(model, inp):
            backend = torch._dynamo.testing.EagerAndRecordGraphs()
            torch.compile(model, backend=backend)(inp)
            graph = backend.graphs[0].graph
            return [
                (
                    node.name,
                    node._dynamo_source.name,
                    tuple(sorted(user.name for user in node.users)),
                )
                for node in graph.nodes
                if node.op == "placeholder"
            ]

        model = Model()
        d1 = {"a": torch.randn(4, 8), "b": torch.randn(4, 8)}
        d2 = {"b": torch.randn(4, 8), "a": torch.randn(4, 8)}

        ph1 = placeholders(model, d1)
        torch._dynamo.reset()
        ph2 = placeholders(model, d2)

        self.assertEqual(ph1, ph2)
        sources = [source for _, source, _ in ph1]
        self.assertEqual(sources, sorted(sources))

    @parametrize(
        "source_names,expected_order,preserves_names",
        (
            (("z", "a"), (1, 0), False),
            (("z", None), (0, 1), True),
            (("same", "same"), (0, 1), True),
        ),
    )
    def test_canonical_graph_placeholder_source_fallback(
        self, source_names, expected_order, preserves_names
    ):
        from torch._dynamo.output_graph import _canonicalize_graph

        graph = fx.Graph()
        graphargs = []
        for i, source_name in enumerate(source_names):
            node = graph.placeholder(f"arg_{i}")
            node.name = f"original_{i}"
            source = (
                None if source_name is None else types.SimpleNamespace(name=source_name)
            )
            grapharg = types.SimpleNamespace(source=source)
            node.meta["grapharg"] = grapharg
            graphargs.append(grapharg)
        graph.output(tuple(graph.find_nodes(op="placeholder")))

        _canonicalize_graph(graph)

        placeholders = graph.find_nodes(op="placeholder")
        actual_order = tuple(
            next(i for i, arg in enumerate(graphargs) if arg is node.meta["grapharg"])
            for node in placeholders
        )
        self.assertEqual(actual_order, expected_order)
        if preserves_names:
            self.assertEqual(
                [node.name for node in placeholders],
                ["original_0", "original_1"],
            )

    def test_dict_order_canonical_graph_correctness(self):
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear_a = torch.nn.Linear(8, 16)
                self.linear_b = torch.nn.Linear(8, 16)

            def forward(self, d):
                return self.linear_a(d["a"]) + self.linear_b(d["b"])

        model = Model()

        d1 = {"a": torch.randn(4, 8), "b": torch.randn(4, 8)}
        d2 = {"b": d1["b"], "a": d1["a"]}

        eager_result = model(d1)
        compiled_result1 = torch.compile(model, backend="eager")(d1)
        torch._dynamo.reset()
        compiled_result2 = torch.compile(model, backend="eager")(d2)

        self.assertEqual(eager_result, compiled_result1)
        self.assertEqual(eager_result, compiled_result2)

    def test_dict_order_canonical_graph_aot_eager(self):
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj_a = torch.nn.Linear(8, 16)
                self.proj_b = torch.nn.Linear(8, 16)

            def forward(self, d):
                results = []
                for key, val in d.items():
                    if key == "a":
                        results.append(self.proj_a(val))
                    else:
                        results.append(self.proj_b(val))
                return torch.cat(results, dim=-1).sum()

        model = Model()
        d1 = {"a": torch.randn(4, 8), "b": torch.randn(4, 8)}
        d2 = {"b": d1["b"], "a": d1["a"]}

        backend1 = torch._dynamo.testing.AotEagerAndRecordGraphs()
        loss1 = torch.compile(model, backend=backend1)(d1)
        loss1.backward()
        grads1 = [parameter.grad.clone() for parameter in model.parameters()]

        torch._dynamo.reset()
        model.zero_grad()

        backend2 = torch._dynamo.testing.AotEagerAndRecordGraphs()
        loss2 = torch.compile(model, backend=backend2)(d2)
        loss2.backward()
        grads2 = [parameter.grad.clone() for parameter in model.parameters()]

        self.assertEqual(loss1, loss2)
        self.assertEqual(grads1, grads2)

    def test_dict_order_canonical_graph_idempotent(self):
        from torch._dynamo.output_graph import _canonicalize_graph

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(8, 16)

            def forward(self, d):
                return self.linear(d["a"]) + self.linear(d["b"])

        model = Model()
        d = {"a": torch.randn(4, 8), "b": torch.randn(4, 8)}
        backend = torch._dynamo.testing.EagerAndRecordGraphs()
        torch.compile(model, backend=backend)(d)
        graph = backend.graphs[0].graph

        names_once = [n.name for n in graph.nodes]
        _canonicalize_graph(graph)
        names_twice = [n.name for n in graph.nodes]
        self.assertEqual(names_once, names_twice)

    def test_canonical_graph_overlapping_unsqueeze_with_mutation(self):
        def f(x, y):
            x.add_(1)
            y.add_(1)
            return x

        base = torch.ones(10)
        inputs = [base.unsqueeze(0), base.unsqueeze(0)]
        out_eager = f(*inputs)

        optf = torch.compile(backend="aot_eager", dynamic=True)(f)
        base = torch.ones(10)
        inputs = [base.unsqueeze(0), base.unsqueeze(0)]
        out_compiled = optf(*inputs)

        self.assertEqual(out_eager, out_compiled)

    def test_canonical_graph_barrier_preserves_order(self):
        from torch._dynamo.output_graph import _canonicalize_graph

        graph = fx.Graph()
        x = graph.placeholder("x")
        # Pure ops that could be reordered
        a = graph.call_function(torch.relu, (x,))
        b = graph.call_function(torch.sigmoid, (x,))
        # In-place call_method acts as barrier
        barrier = graph.call_method("add_", (x, a))
        # Pure op after barrier
        c = graph.call_function(torch.neg, (x,))
        graph.output((a, b, barrier, c))

        _canonicalize_graph(graph)
        ops = [n.name for n in graph.nodes if n.op in ("call_function", "call_method")]
        barrier_idx = next(i for i, name in enumerate(ops) if "add_" in name)
        neg_idx = next(i for i, name in enumerate(ops) if "neg" in name)
        # neg must come after the barrier even though it only depends on x
        self.assertGreater(neg_idx, barrier_idx)

    def test_canonical_graph_in_place_ops_are_barriers(self):
        def f(x, y):
            a = y * 2
            x.add_(1)
            b = y * 3
            return a + b + x

        backend = torch._dynamo.testing.EagerAndRecordGraphs()
        out = torch.compile(f, backend=backend)(torch.randn(4), torch.randn(4))
        out_eager = f(torch.randn(4), torch.randn(4))
        self.assertEqual(out.shape, out_eager.shape)

        graph = backend.graphs[0].graph
        ops = [
            (n.name, n.op)
            for n in graph.nodes
            if n.op in ("call_function", "call_method")
        ]
        barrier_idx = next(
            i
            for i, (name, op) in enumerate(ops)
            if op == "call_method" and "add_" in name
        )
        mul_before = [
            i
            for i, (name, _) in enumerate(ops)
            if name.startswith("mul") and i < barrier_idx
        ]
        mul_after = [
            i
            for i, (name, _) in enumerate(ops)
            if name.startswith("mul") and i > barrier_idx
        ]
        self.assertTrue(len(mul_before) >= 1)
        self.assertTrue(len(mul_after) >= 1)

    def test_canonical_graph_config_gating(self):
        # The branches must be asymmetric (deep vs shallow) so the node order
        # actually differs without canonicalization.
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.deep = torch.nn.Sequential(
                    torch.nn.Linear(8, 16),
                    torch.nn.ReLU(),
                    torch.nn.Linear(16, 16),
                )
                self.shallow = torch.nn.Linear(8, 16)

            def forward(self, d):
                results = []
                for key, val in d.items():
                    if key == "a":
                        results.append(self.deep(val))
                    else:
                        results.append(self.shallow(val))
                return torch.cat(results, dim=-1)

        model = Model()
        d1 = {"a": torch.randn(4, 8), "b": torch.randn(4, 8)}
        d2 = {"b": torch.randn(4, 8), "a": torch.randn(4, 8)}

        with torch._dynamo.config.patch(canonicalize_output_graph_node_order=False):
            names1 = self._get_graph_node_names(model, d1)
            torch._dynamo.reset()
            names2 = self._get_graph_node_names(model, d2)
        self.assertNotEqual(names1, names2)

        torch._dynamo.reset()
        with torch._dynamo.config.patch(canonicalize_output_graph_node_order=True):
            names3 = self._get_graph_node_names(model, d1)
            torch._dynamo.reset()
            names4 = self._get_graph_node_names(model, d2)
        self.assertEqual(names3, names4)

    def test_canonical_graph_is_safe_to_reorder(self):
        import operator

        from torch.fx.passes.canonicalize import _is_safe_to_reorder

        graph = fx.Graph()
        x = graph.placeholder("x")

        # Reorderable call_function nodes must carry a tensor or symbolic
        # example_value/val, as Dynamo attaches to every data-producing node.
        def pure(node):
            node.meta["example_value"] = torch.empty(0)
            return node

        pure_call = pure(graph.call_function(torch.relu, (x,)))
        self.assertTrue(_is_safe_to_reorder(pure_call))

        inplace_method = graph.call_method("add_", (x, x))
        self.assertFalse(_is_safe_to_reorder(inplace_method))

        safe_method = graph.call_method("add", (x, x))
        self.assertTrue(_is_safe_to_reorder(safe_method))

        iadd_node = graph.call_function(operator.iadd, (x, x))
        self.assertFalse(_is_safe_to_reorder(iadd_node))

        # operator.invert is pure despite starting with "i"
        invert_node = pure(graph.call_function(operator.invert, (x,)))
        self.assertTrue(_is_safe_to_reorder(invert_node))

        index_node = pure(graph.call_function(operator.index, (x,)))
        self.assertTrue(_is_safe_to_reorder(index_node))

        # out= kwarg makes a node unsafe
        out_node = graph.call_function(torch.add, (x, x), {"out": x})
        self.assertFalse(_is_safe_to_reorder(out_node))

        # Functions with no FX Node arguments are treated as barriers
        def _fake_state_fn():
            pass

        no_input_node = graph.call_function(_fake_state_fn, ())
        self.assertFalse(_is_safe_to_reorder(no_input_node))

        # _add_batch_dim / _remove_batch_dim are barriers
        add_batch = pure(graph.call_function(torch._add_batch_dim, (x, x, x)))
        self.assertFalse(_is_safe_to_reorder(add_batch))

        remove_batch = pure(graph.call_function(torch._remove_batch_dim, (x, x, x, x)))
        self.assertFalse(_is_safe_to_reorder(remove_batch))

        # State functions that consume the token produced by their enter node
        # (so the no-node-arguments heuristic misses them) are barriers:
        # inference_mode via _side_effectful_functions, arbitrary ones (e.g.
        # _sdpa_kernel, _maybe_exchange_device) via the lack of a tensor or
        # symbolic example_value/val.
        enter_node = graph.call_function(
            torch.autograd.grad_mode._enter_inference_mode, (True,)
        )
        self.assertFalse(_is_safe_to_reorder(enter_node))
        exit_node = graph.call_function(
            torch.autograd.grad_mode._exit_inference_mode, (enter_node,)
        )
        self.assertFalse(_is_safe_to_reorder(exit_node))

        def _fake_exit_fn(token):
            pass

        token_consumer = graph.call_function(_fake_exit_fn, (no_input_node,))
        self.assertFalse(_is_safe_to_reorder(token_consumer))
        self.assertTrue(_is_safe_to_reorder(pure(token_consumer)))

        def flat_apply_capture(value):
            return value

        flat_apply_capture.__module__ = "torch._dynamo.variables.torch"
        opaque_call = pure(graph.call_function(flat_apply_capture, (x,)))
        self.assertFalse(_is_safe_to_reorder(opaque_call))

        # Nodes binding unbacked symbols are barriers: reordering them changes
        # the order the ShapeEnv resolves replacements (compile-time blowup).
        # Checked before the call_method branch, since Dynamo emits item() as a
        # call_method that would otherwise be reported safe.
        unbacked_method = graph.call_method("item", (x,))
        self.assertTrue(_is_safe_to_reorder(unbacked_method))
        unbacked_method.meta["unbacked_bindings"] = {"u0": ()}
        self.assertFalse(_is_safe_to_reorder(unbacked_method))

        # The generic state-only-function heuristic must keep both aliases of
        # increment_version pinned even though their names differ.
        self.assertFalse(
            _is_safe_to_reorder(
                graph.call_function(torch.autograd.graph.increment_version, (x,))
            )
        )
        self.assertFalse(
            _is_safe_to_reorder(graph.call_function(torch._C._increment_version, (x,)))
        )

        # A HOP whose subgraphs cannot be resolved is a barrier: its effects
        # could live anywhere this pass cannot see.
        cond_node = graph.call_function(torch.ops.higher_order.cond, (x, x, x, ()))
        self.assertFalse(_is_safe_to_reorder(cond_node))

    def test_canonical_graph_hop_mutation_is_not_reordered(self):
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("buf", torch.ones(8))

            def forward(self, p, x):
                def true_fn(x):
                    x.add_(1)
                    self.buf.add_(1)
                    return x + self.buf

                x = x.clone()
                out = torch.cond(p, true_fn, true_fn, (x,))
                # Reads the values true_fn mutated; hoisting either read above
                # the cond observes the pre-mutation buffer.
                return x + self.buf + out

        p, x = torch.tensor(True), torch.randn(1)
        with torch.no_grad():
            ref = M()(p, x.clone())
            torch._dynamo.reset()
            res = torch.compile(M(), backend="eager", fullgraph=True)(p, x.clone())
        self.assertEqual(ref, res)

    @torch._dynamo.config.patch(
        canonicalize_output_graph_node_order=True,
        do_not_emit_runtime_asserts=True,
    )
    def test_canonical_graph_hop_purity_without_runtime_asserts(self):
        def fn(pred, x):
            def branch(x):
                return x.sin()

            out = torch.cond(pred, branch, branch, (x,))
            return out + torch.abs(x)

        backend = torch._dynamo.testing.EagerAndRecordGraphs()
        torch.compile(fn, backend=backend, fullgraph=True)(
            torch.tensor(True), torch.randn(4)
        )
        nodes = list(backend.graphs[0].graph.nodes)
        cond = next(
            node for node in nodes if node.target is torch.ops.higher_order.cond
        )
        abs_ = next(node for node in nodes if node.target is torch.abs)
        self.assertLess(nodes.index(abs_), nodes.index(cond))

    def test_canonical_graph_explicit_owner_for_call_module(self):
        from torch._dynamo.output_graph import _canonicalize_graph

        root = torch.nn.Module()
        root.relu = torch.nn.ReLU()
        graph = fx.Graph()
        x = graph.placeholder("x")
        relu = graph.call_module("relu", (x,))
        graph.output(relu)

        self.assertIsNone(graph.owning_module)
        _canonicalize_graph(graph, owning_module=root)

    def test_canonical_graph_increment_version_stays_between_reads(self):
        from torch._dynamo.output_graph import _canonicalize_graph
        from torch._dynamo.tensor_version_op import _tensor_version

        graph = fx.Graph()
        x = graph.placeholder("x")
        v0 = graph.call_function(_tensor_version, (x,))
        graph.call_function(torch.autograd.graph.increment_version, (x,))
        v1 = graph.call_function(_tensor_version, (x,))
        graph.output((v0, v1))

        # Both reads sort before the bump on the canonical key, so without the
        # barrier they hoist above it and observe the same version.
        _canonicalize_graph(graph)
        read, bump = "_tensor_version_default", "increment_version"
        expected = ["x", read, bump, f"{read}_1", "output"]
        self.assertEqual([n.name for n in graph.nodes], expected)

    def test_canonical_graph_hop_barrier_follows_subgraph_purity(self):
        from torch.fx.passes.canonicalize import _is_safe_to_reorder

        def make(
            body,
            target=torch.ops.higher_order.cond,
            *,
            nested=False,
            with_constant=False,
        ):
            root = torch.nn.Module()
            sub = fx.Graph()
            s = sub.placeholder("s")
            sub.output((body(sub, s),))
            root.branch = fx.GraphModule(torch.nn.Module(), sub)
            if with_constant:
                root.register_buffer("constant", torch.ones(1))
            g = fx.Graph()
            x = g.placeholder("x")
            attr = g.get_attr("branch")
            constant = g.get_attr("constant") if with_constant else None
            gm = fx.GraphModule(root, g)
            subgraphs = [attr] if nested else attr
            operands = (x, constant) if with_constant else (x,)
            return gm.graph.call_function(target, (x, subgraphs, operands))

        # aten overloads, not bare python callables: main's value heuristic
        # barriers any non-OpOverload node lacking example_value/val meta,
        # which synthetic test nodes do not carry.
        pure = make(lambda sub, s: sub.call_function(torch.ops.aten.sin.default, (s,)))
        self.assertTrue(_is_safe_to_reorder(pure))

        mutating = make(lambda sub, s: sub.call_method("add_", (s, s)))
        self.assertFalse(_is_safe_to_reorder(mutating))

        for target in (
            torch.ops.higher_order.flex_attention_backward,
            torch.ops.higher_order.flex_gemm,
            torch.ops.higher_order.foreach_map,
            torch.ops.higher_order.hints_wrapper,
            torch.ops.higher_order.invoke_quant,
            torch.ops.higher_order.invoke_quant_packed,
            torch.ops.higher_order.local_map_hop,
            torch.ops.higher_order.strict_mode,
            torch.ops.higher_order.while_loop_stack_output,
        ):
            self.assertTrue(
                _is_safe_to_reorder(
                    make(
                        lambda sub, s: sub.call_function(
                            torch.ops.aten.sin.default, (s,)
                        ),
                        target,
                    )
                ),
                target.__name__,
            )

        nested_pure = make(
            lambda sub, s: sub.call_function(torch.ops.aten.sin.default, (s,)),
            torch.ops.higher_order.switch,
            nested=True,
        )
        self.assertTrue(_is_safe_to_reorder(nested_pure))
        nested_pure_with_constant = make(
            lambda sub, s: sub.call_function(torch.ops.aten.sin.default, (s,)),
            torch.ops.higher_order.switch,
            nested=True,
            with_constant=True,
        )
        self.assertTrue(_is_safe_to_reorder(nested_pure_with_constant))
        nested_mutating = make(
            lambda sub, s: sub.call_method("add_", (s, s)),
            torch.ops.higher_order.switch,
            nested=True,
        )
        self.assertFalse(_is_safe_to_reorder(nested_mutating))

        checkpoint = make(
            lambda sub, s: sub.call_function(torch.ops.aten.sin.default, (s,)),
            torch.ops.higher_order.tag_activation_checkpoint,
        )
        self.assertTrue(_is_safe_to_reorder(checkpoint))
        owning_module = checkpoint.graph.owning_module
        if owning_module is None:
            raise AssertionError("checkpoint graph must have an owning module")
        checkpoint_body = owning_module.get_submodule("branch")
        checkpoint_body.meta["_checkpoint_context_fn"] = lambda: None
        self.assertFalse(_is_safe_to_reorder(checkpoint))

        wrap_checkpoint = make(
            lambda sub, s: sub.call_function(torch.ops.aten.sin.default, (s,)),
            torch.ops.higher_order.wrap_activation_checkpoint,
        )
        self.assertTrue(_is_safe_to_reorder(wrap_checkpoint))
        owning_module = wrap_checkpoint.graph.owning_module
        if owning_module is None:
            raise AssertionError("checkpoint graph must have an owning module")
        checkpoint_body = owning_module.get_submodule("branch")
        checkpoint_body.meta["_checkpoint_context_fn"] = lambda: None
        self.assertFalse(_is_safe_to_reorder(wrap_checkpoint))

        # Effects that do not live in a subgraph keep the HOP pinned even when
        # every subgraph it does carry is pure.
        not_allowlisted = make(
            lambda sub, s: sub.call_function(torch.ops.aten.sin.default, (s,))
        )
        not_allowlisted.target = torch.ops.higher_order.auto_functionalized_v2
        self.assertFalse(_is_safe_to_reorder(not_allowlisted))

    @unittest.skipIf(not torch.distributed.is_available(), "requires distributed")
    def test_canonical_graph_collectives_are_barriers(self):
        from torch.distributed import _functional_collectives
        from torch.fx.passes.canonicalize import _is_safe_to_reorder

        self.assertIsNotNone(_functional_collectives)
        graph = fx.Graph()
        x = graph.placeholder("x")

        # Functional collectives are barriers (comm/compute overlap + Inductor's
        # in-place collective reuse). Cover current and legacy namespaces in
        # both the Dynamo packet and aten overload forms.
        for namespace in (
            torch.ops._c10d_functional,
            torch.ops.c10d_functional,
        ):
            self.assertFalse(
                _is_safe_to_reorder(
                    graph.call_function(namespace.all_reduce.default, (x,))
                )
            )
            collective_packet = graph.call_function(namespace.all_reduce, (x,))
            collective_packet.meta["example_value"] = torch.randn(4)
            self.assertFalse(_is_safe_to_reorder(collective_packet))
        self.assertTrue(
            _is_safe_to_reorder(graph.call_function(torch.ops.aten.add.Tensor, (x, x)))
        )

        # Every order-sensitive namespace, not just _c10d_functional. symm_mem
        # carries sync primitives, so reordering across a wait breaks the sync
        # contract; _dtensor carries collectives with the same overlap concern.
        for op in (
            torch.ops._c10d_functional_autograd.all_to_all_single.default,
            torch.ops.symm_mem.one_shot_all_reduce.default,
            torch.ops.symm_mem.nvshmem_wait_for_signal.default,
            torch.ops._dtensor.shard_dim_alltoall.default,
        ):
            self.assertFalse(
                _is_safe_to_reorder(graph.call_function(op, (x,))), op.name()
            )


instantiate_parametrized_tests(DictTests)


class DictGuardTests(LoggingTestCase):
    thetype = dict

    @make_logging_test(recompiles=True)
    def test_popitem(self, records):
        d = self.thetype()
        d[1] = 2
        d[3] = 4

        @torch.compile(backend="eager", fullgraph=True)
        def fn(x):
            k, v = d.popitem()
            if k == 3 and v == 4:
                return x.sin()
            return x.cos()

        x = torch.tensor(1.0)
        y = fn(x)
        # sanity check
        self.assertEqual(len(records), 0)
        self.assertEqual(y, x.sin())

        d[3] = 5
        y = fn(x)
        self.assertEqual(len(records), 1)
        self.assertEqual(y, x.cos())
        record = self.getRecord(records, "d")
        self.assertIn(
            """d[3] == 4""",
            munge_exc(record),
        )

    @make_logging_test(recompiles=True)
    def test_cmp_eq(self, records):
        @torch.compile(backend="eager", fullgraph=True)
        def fn(x, d1, d2):
            if d1 == d2:
                return x.sin()
            return x.cos()

        x = torch.tensor(1.0)
        d1 = self.thetype({1: 2, 3: 4})
        d2 = self.thetype({1: 2, 5: 6})
        y = fn(x, d1, d2)
        # sanity check
        self.assertEqual(len(records), 0)
        self.assertEqual(y, x.cos())

        y = fn(x, d1, d1)
        self.assertEqual(len(records), 1)
        self.assertEqual(y, x.sin())
        record = self.getRecord(records, "d2")
        self.assertIn(
            "___dict_contains",
            munge_exc(record.getMessage()),
        )

    @make_logging_test(recompiles=True)
    def test_cmp_ne(self, records):
        @torch.compile(backend="eager", fullgraph=True)
        def fn(x, d1, d2):
            if d1 == d2:
                return x.sin()
            return x.cos()

        x = torch.tensor(1.0)
        d1 = self.thetype({1: 2, 3: 4})
        d2 = self.thetype({1: 2, 5: 6})
        y = fn(x, d1, d2)
        # sanity check
        self.assertEqual(len(records), 0)
        self.assertEqual(y, x.cos())

        y = fn(x, d1, d1)
        self.assertEqual(len(records), 1)
        self.assertEqual(y, x.sin())
        record = self.getRecord(records, "d2")
        self.assertIn(
            "___dict_contains",
            munge_exc(record.getMessage()),
        )

    @make_logging_test(recompiles=True)
    def test_cmp_or(self, records):
        @torch.compile(backend="eager", fullgraph=True)
        def fn(x, d1, d2):
            d = d1 | d2
            if d.get(5, False):
                return x.sin()
            return x.cos()

        x = torch.tensor(1.0)
        d1 = self.thetype({1: 2, 3: 4})
        d2 = self.thetype({1: 2, 5: 6})
        y = fn(x, d1, d2)
        # sanity check
        self.assertEqual(len(records), 0)
        self.assertEqual(y, x.sin())

        y = fn(x, d1, d1)
        self.assertEqual(len(records), 1)
        self.assertEqual(y, x.cos())
        record = self.getRecord(records, "d2")
        self.assertIn(
            """KeyError on d2[5]""",
            munge_exc(record.getMessage()),
        )

    @make_logging_test(recompiles=True)
    def test_cmp_ior(self, records):
        @torch.compile(backend="eager", fullgraph=True)
        def fn(x, d1, d2):
            d2 |= d1
            if d2.get(3, False):
                return x.sin()
            return x.cos()

        x = torch.tensor(1.0)
        d1 = self.thetype({1: 2, 3: 4})
        d2 = self.thetype({1: 2, 5: 6})
        d3, d4 = d2.copy(), d2.copy()
        y = fn(x, d1, d2)
        # sanity check
        self.assertEqual(len(records), 0)
        self.assertEqual(y, x.sin())

        y = fn(x, d3, d4)
        self.assertEqual(len(records), 1)
        self.assertEqual(y, x.cos())
        record = self.getRecord(records, "d1")
        self.assertIn(
            """KeyError on d1[3]""",
            munge_exc(record.getMessage()),
        )


class DictMethodsTests(torch._dynamo.test_case.TestCase):
    thetype = dict

    # Methods:
    # + bool
    # + clear
    # + copy
    # + fromkeys
    # + get
    # + items
    # + keys
    # + pop
    # + popitem
    # + setdefault
    # + update
    # + values
    # BinOps:
    # ==, !=, |

    def setUp(self):
        self._prev_trace_unittest = torch._dynamo.config.enable_trace_unittest
        torch._dynamo.config.enable_trace_unittest = True
        super().setUp()

    def tearDown(self):
        torch._dynamo.config.enable_trace_unittest = self._prev_trace_unittest
        return super().tearDown()

    def assertEqual(self, x, y):
        self.assertTrue(x == y, lambda msg: f"{msg}\nExpected {x} to be equal to {y}")

    def assertNotEqual(self, x, y):
        self.assertFalse(
            x == y, lambda msg: f"{msg}\nExpected {x} to not be equal to {y}"
        )

    @make_dynamo_test
    def test_dict_items_cmp_value_eq_raises(self):
        # dictitems_contains calls PyObject_RichCompareBool(found, value, Py_EQ)
        # on the stored value, so a value whose __eq__ raises must propagate that
        # exception. Equal-length views push the comparison past
        # dictview_richcompare's length short-circuit for eq/ne/le/ge.
        d1 = self.thetype({1: _BadCmp()})
        d2 = self.thetype({1: _BadCmp()})
        for op in (operator.eq, operator.ne, operator.le, operator.ge):
            with self.assertRaises(_BadCmpExc):
                op(d1.items(), d2.items())
        # lt/gt reach the value comparison only on a proper-subset length match.
        d3 = self.thetype({1: _BadCmp(), 2: _BadCmp()})
        with self.assertRaises(_BadCmpExc):
            d1.items() < d3.items()  # noqa: B015
        with self.assertRaises(_BadCmpExc):
            d3.items() > d1.items()  # noqa: B015

    @make_dynamo_test
    def test_dict_items_cmp_value_present_absent(self):
        # Normal value comparison: matching/non-matching stored values resolve
        # membership without raising, matching eager dict_items semantics.
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"a": 1, "b": 2, "c": 3})
        d3 = self.thetype({"a": 1, "b": 99})
        self.assertEqual(d1.items() == d2.items(), False)
        self.assertEqual(d1.items() <= d2.items(), True)
        self.assertEqual(d1.items() < d2.items(), True)
        self.assertEqual(d1.items() == d3.items(), False)
        self.assertEqual(d1.items() <= d3.items(), False)
        self.assertEqual(d2.items() >= d1.items(), True)

    @make_dynamo_test
    def test_cmp_eq_key_raises(self):
        # A key whose __eq__ raises must propagate that exception during dict
        # comparison, mirroring CPython's PyObject_RichCompareBool lookup.
        d1 = self.thetype({_BadCmp(): 1})
        d2 = self.thetype({1: 1})
        with self.assertRaises(_BadCmpExc):
            d1 == d2  # noqa: B015

    @make_dynamo_test
    def test_cmp_eq(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"a": 1, "b": 2})
        d3 = self.thetype({"a": 1, "b": 3})
        self.assertEqual(d1, d2)
        self.assertNotEqual(d1, d3)

        # Test the == operator
        self.assertEqual(d1 == d2, True)
        self.assertEqual(d1 == d3, False)

        # Test the __eq__ method
        self.assertEqual(d1.__eq__(d2), True)
        self.assertEqual(d1.__eq__(d3), False)

        # Test Dict.__eq__
        self.assertEqual(dict.__eq__(d1, d2), True)
        self.assertEqual(self.thetype.__eq__(d1, d3), False)

    @make_dynamo_test
    def test_cmp_ne(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"a": 1, "b": 2})
        d3 = self.thetype({"a": 1, "b": 3})
        self.assertNotEqual(d1, d3)
        self.assertEqual(d1, d2)

        # Test the != operator
        self.assertEqual(d1 != d3, True)
        self.assertEqual(d1 != d2, False)

        # Test the __ne__ method
        self.assertEqual(d1.__ne__(d3), True)
        self.assertEqual(d1.__ne__(d2), False)

        # Test Dict.__ne__
        self.assertEqual(dict.__ne__(d1, d3), True)
        self.assertEqual(self.thetype.__ne__(d1, d2), False)

    @make_dynamo_test
    def test_binop_or(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"b": 3, "c": 4})

        # Test the | operator
        self.assertEqual(d1 | d2, {"a": 1, "b": 3, "c": 4})
        self.assertEqual(d2 | d1, {"a": 1, "b": 2, "c": 4})

        # Test the __or__ method
        self.assertEqual(d1.__or__(d2), {"a": 1, "b": 3, "c": 4})
        self.assertEqual(d2.__or__(d1), {"a": 1, "b": 2, "c": 4})

        # Test Dict.__or__
        self.assertEqual(dict.__or__(d1, d2), {"a": 1, "b": 3, "c": 4})
        self.assertEqual(self.thetype.__or__(d2, d1), {"a": 1, "b": 2, "c": 4})

        # Test with non-dict types
        self.assertRaises(TypeError, lambda: d1 | 1)

    @make_dynamo_test
    def test_binop_ior(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"b": 3, "c": 4})

        # Test the |= operator
        d3, d4 = d1.copy(), d2.copy()
        d3 |= d2
        d4 |= d1
        self.assertEqual(d3, {"a": 1, "b": 3, "c": 4})
        self.assertEqual(d4, {"a": 1, "b": 2, "c": 4})

        # Test the __ior__ method
        d3, d4 = d1.copy(), d2.copy()
        d3.__ior__(d2)
        d4.__ior__(d1)
        self.assertEqual(d3, {"a": 1, "b": 3, "c": 4})
        self.assertEqual(d4, {"a": 1, "b": 2, "c": 4})

        # Test Dict.__or__
        d3, d4 = d1.copy(), d2.copy()
        self.assertEqual(dict.__ior__(d3, d2), {"a": 1, "b": 3, "c": 4})
        self.assertEqual(self.thetype.__ior__(d4, d1), {"a": 1, "b": 2, "c": 4})

        # Test return value
        d3, d4 = d1.copy(), d2.copy()
        self.assertEqual(d3.__ior__(d2), {"a": 1, "b": 3, "c": 4})
        self.assertEqual(dict.__ior__(d4, d1), {"a": 1, "b": 2, "c": 4})

        # Test with non-dict types
        self.assertRaises(TypeError, lambda: dict.__ior__(d1, 1))

    @make_dynamo_test
    def test_binop_ior_iterable(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"b": 3, "c": 4})
        d3, d4 = d1.copy(), d2.copy()

        def fn(d):
            yield from d.items()

        self.assertEqual(d3.__ior__(d2.items()), {"a": 1, "b": 3, "c": 4})
        self.assertEqual(d4.__ior__(fn(d1)), {"a": 1, "b": 2, "c": 4})

    @make_dynamo_test
    def test_clear(self):
        d = self.thetype({"a": 1, "b": 2})
        d.clear()
        self.assertEqual(d, {})

        # Test that clear returns None
        d = self.thetype({"a": 1, "b": 2})
        self.assertIsNone(d.clear())

        # Test Dict.clear
        d = self.thetype({"a": 1, "b": 2})
        dict.clear(d)
        self.assertEqual(d, {})

        d = self.thetype({"a": 1, "b": 2})
        self.thetype.clear(d)
        self.assertEqual(d, {})

        # Test invalid usage
        self.assertRaises(TypeError, d.clear, 1)

    @make_dynamo_test
    def test_copy(self):
        d = self.thetype({"a": 1, "b": 2})
        d2 = d.copy()
        self.assertEqual(d, d2)

        # Test that copy returns a new instance
        self.assertIsNot(d, d2)

        # Test Dict.copy
        self.assertEqual(dict.copy(d), d2)
        self.assertEqual(self.thetype.copy(d), d2)

        # Test invalid usage
        self.assertRaises(TypeError, d.copy, 1)

    @make_dynamo_test
    def test_fromkeys(self):
        d = self.thetype.fromkeys(["a", "b"], 1)
        self.assertEqual(d, {"a": 1, "b": 1})
        p = self.thetype.fromkeys(["a", "b"], None)
        self.assertEqual(p, {"a": None, "b": None})

        # Test Dict.fromkeys
        d2 = self.thetype.fromkeys(["c", "d"], 2)
        self.assertEqual(d2, {"c": 2, "d": 2})

        # Test invalid usage
        self.assertRaises(TypeError, self.thetype.fromkeys)
        self.assertRaises(TypeError, self.thetype.fromkeys, 1, 2)

    @make_dynamo_test
    def test_get(self):
        d = self.thetype({"a": 1, "b": 2})
        self.assertEqual(d.get("a"), 1)
        self.assertEqual(d.get("c", 3), 3)
        self.assertIsNone(d.get("c"))

        # Test Dict.get
        self.assertEqual(dict.get(d, "b"), 2)
        self.assertEqual(self.thetype.get(d, "b"), 2)

        # Test invalid usage
        self.assertRaises(TypeError, d.get)

    @make_dynamo_test
    def test_items(self):
        d = self.thetype({"a": 1, "b": 2})
        items = d.items()
        self.assertEqual(set(items), {("a", 1), ("b", 2)})

        # Test Dict.items
        self.assertEqual(set(dict.items(d)), {("a", 1), ("b", 2)})
        self.assertEqual(set(self.thetype.items(d)), {("a", 1), ("b", 2)})

        # Test invalid usage
        self.assertRaises(TypeError, d.items, 1)

    @make_dynamo_test
    def test_keys(self):
        d = self.thetype({"a": 1, "b": 2})
        keys = d.keys()
        self.assertEqual(set(keys), {"a", "b"})

        # Test Dict.keys
        self.assertEqual(set(dict.keys(d)), {"a", "b"})
        self.assertEqual(set(self.thetype.keys(d)), {"a", "b"})

        # Test invalid usage
        self.assertRaises(TypeError, d.keys, 1)

    @make_dynamo_test
    def test_pop(self):
        d = self.thetype({"a": 1, "b": 2})
        self.assertEqual(d.pop("a"), 1)
        self.assertEqual(d, {"b": 2})
        self.assertIsNone(d.pop("c", None))

        # Test Dict.pop
        d = self.thetype({"a": 1, "b": 2})
        self.assertEqual(dict.pop(d, "b"), 2)
        self.assertEqual(self.thetype.pop(d, "a"), 1)

        # Test invalid usage
        self.assertRaises(KeyError, d.pop, "c")
        self.assertRaises(TypeError, d.pop)

    @make_dynamo_test
    def test_popitem(self):
        d = self.thetype({"a": 1})
        key, value = d.popitem()
        self.assertEqual(key, "a")
        self.assertEqual(value, 1)
        self.assertEqual(len(d), 0)
        # check LIFO
        d = self.thetype()
        d["a"] = 1
        d["b"] = 2
        self.assertEqual(d.popitem(), ("b", 2))

        # Test Dict.popitem
        d = self.thetype({"a": 1})
        key, value = dict.popitem(d)
        self.assertEqual(key, "a")
        self.assertEqual(value, 1)

        d = self.thetype({"a": 1})
        key, value = self.thetype.popitem(d)
        self.assertEqual(key, "a")
        self.assertEqual(value, 1)

        # Test invalid usage
        if self.thetype is not OrderedDict:
            # OrderedDict accepts a keyword arg
            self.assertRaises(TypeError, d.popitem, 1)

    @make_dynamo_test
    def test_setdefault(self):
        d = self.thetype({"a": 1, "b": 2})
        self.assertEqual(d.setdefault("a", 3), 1)
        self.assertEqual(d.setdefault("c", 3), 3)
        self.assertIsNone(d.setdefault("d"), None)
        self.assertEqual(d, {"a": 1, "b": 2, "c": 3, "d": None})

        # Test Dict.setdefault
        self.assertEqual(dict.setdefault(d, "f", 5), 5)
        self.assertEqual(self.thetype.setdefault(d, "e", 5), 5)

        # Test invalid usage
        self.assertRaises(TypeError, d.setdefault)
        self.assertRaises(TypeError, d.setdefault, [[]])

    @make_dynamo_test
    def test_update(self):
        d = self.thetype({"a": 1, "b": 2})
        d.update({"b": 3, "c": 4})
        self.assertEqual(d, {"a": 1, "b": 3, "c": 4})

        # Test with another dict
        d2 = self.thetype({"d": 5})
        d.update(d2)
        self.assertEqual(d, {"a": 1, "b": 3, "c": 4, "d": 5})

        # Test Dict.update
        d3 = self.thetype({"e": 6})
        dict.update(d, d3)
        self.assertEqual(d, {"a": 1, "b": 3, "c": 4, "d": 5, "e": 6})
        d4 = self.thetype({"f": 7})
        self.thetype.update(d, d4)
        self.assertEqual(d, {"a": 1, "b": 3, "c": 4, "d": 5, "e": 6, "f": 7})

        # Test with keyword arguments
        d.update(f=7, g=8)
        self.assertEqual(d, {"a": 1, "b": 3, "c": 4, "d": 5, "e": 6, "f": 7, "g": 8})

        # Test Dict.update with keyword arguments
        self.thetype.update(d, h=9, i=10)
        self.assertEqual(
            d, {"a": 1, "b": 3, "c": 4, "d": 5, "e": 6, "f": 7, "g": 8, "h": 9, "i": 10}
        )

        # Test invalid usage
        self.assertRaises(TypeError, d.update, 1)

    @make_dynamo_test
    def test_values(self):
        d = self.thetype({"a": 1, "b": 2})
        values = d.values()
        self.assertEqual(set(values), {1, 2})

        # Test Dict.values
        self.assertEqual(set(dict.values(d)), {1, 2})
        self.assertEqual(set(self.thetype.values(d)), {1, 2})

        # Test invalid usage
        self.assertRaises(TypeError, d.values, 1)

    @make_dynamo_test
    def test_keys_contains(self):
        d = self.thetype({"a": 1, "b": 2})
        keys = d.keys()
        self.assertTrue("a" in keys)
        self.assertTrue("b" in keys)
        self.assertFalse("c" in keys)

        # Test Dict.keys contains
        self.assertTrue("a" in dict.keys(d))
        self.assertFalse("c" in dict.keys(d))
        self.assertTrue("b" in self.thetype.keys(d))

    @make_dynamo_test
    def test_items_contains(self):
        d = self.thetype({"a": 1, "b": 2})
        items = d.items()
        self.assertTrue(("a", 1) in items)
        self.assertTrue(("b", 2) in items)
        self.assertFalse(("a", 2) in items)
        self.assertFalse(("c", 1) in items)

        # Test Dict.items contains
        self.assertTrue(("a", 1) in dict.items(d))
        self.assertFalse(("c", 1) in dict.items(d))
        self.assertTrue(("b", 2) in self.thetype.items(d))

    @make_dynamo_test
    def test_values_contains(self):
        d = self.thetype({"a": 1, "b": 2})
        values = d.values()
        self.assertTrue(1 in values)
        self.assertTrue(2 in values)
        self.assertFalse(3 in values)

        # Test Dict.values contains
        self.assertTrue(1 in dict.values(d))
        self.assertFalse(3 in dict.values(d))
        self.assertTrue(2 in self.thetype.values(d))

    @make_dynamo_test
    def test_type(self):
        d = self.thetype({"a": 1, "b": 2})
        self.assertIsInstance(d, self.thetype)
        self.assertIs(type(d), self.thetype)

    @make_dynamo_test
    def test_dict_type_comparison(self):
        types = (dict, OrderedDict, defaultdict)
        self.assertEqual(self.thetype, self.thetype)
        self.assertTrue(self.thetype is self.thetype)
        for other in types:
            if self.thetype == other:
                continue
            self.assertNotEqual(self.thetype, other)
            self.assertTrue(
                self.thetype is not other,
                lambda msg: f"{msg}\n{self.thetype=}, {other=}",
            )

    @make_dynamo_test
    def test_dict___iter__(self):
        d = self.thetype({1: 2})
        it = d.__iter__()
        self.assertEqual(next(it), 1)

    def test_functools_partial_key(self):
        def gn(x, y):
            return x + y

        def fn(x):
            new_dict = {}
            new_gn1 = partial(gn, x=1)
            new_dict[new_gn1] = 5
            return x * new_dict[new_gn1]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

        ref = fn(x)
        res = opt_fn(x)
        self.assertTrue(same(ref, res))

    def test_namedtuple_functools(self):
        class Container(NamedTuple):
            partial_fn: Callable
            const: int

        def gn(x, y):
            return x + y

        def fn(x):
            new_dict = {}

            new_gn = partial(gn, x=1)
            key = Container(new_gn, 4)
            new_dict[key] = 5
            # Make another key that should hash to the same value
            key1 = Container(new_gn, 4)
            return x * new_dict[key1]

        x = torch.randn(4)
        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)

        ref = fn(x)
        res = opt_fn(x)
        self.assertTrue(same(ref, res))

    def test_custom_object_as_dict_key(self):
        """Test that custom objects with __hash__ as dict keys are properly handled.

        This test verifies that when using custom objects with overridden __hash__
        and __eq__ as dictionary keys, two instances with the same hash and equality
        should be recognized as the same key.
        """

        class CustomKey:
            def __init__(self, value, name):
                self.value = value
                self.name = name

        def fn(x):
            d = {}
            # Create first instance
            key1 = CustomKey(42, "test")
            d[key1] = x * 2

            # Create second instance with same values - should hash to same value
            key2 = CustomKey(42, "test")
            d[key2] = x * 3  # This should overwrite the first value

            return d[key1] * d[key2]

        x = torch.randn(4)

        opt_fn = torch.compile(fn, backend="eager", fullgraph=True)
        self.assertTrue(same(opt_fn(x), fn(x)))

    def test_user_defined_object(self):
        class A:
            def __init__(self):
                self.x = {}
                REF[self] = {}

        REF = {}

        def f(a, x):
            REF[a]["foo"] = x
            return x + 1

        opt_f = torch.compile(f, backend="eager", fullgraph=True)

        x = torch.randn(4)
        self.assertTrue(same(f(A(), x), opt_f(A(), x)))

    @make_dynamo_test
    def test_bool(self):
        p = self.thetype()
        q = self.thetype({"a": 1, "b": 2})
        if p:
            self.fail("empty mapping must compare to False")
        if not q:
            self.fail("non-empty mapping must compare to True")
        if bool(p):
            self.fail("empty mapping must compare to False")
        if not bool(q):
            self.fail("non-empty mapping must compare to True")


class DictSubclassMethodsTests(DictMethodsTests):
    thetype = SimpleDict


class OrderedDictMethodsTests(DictMethodsTests):
    thetype = OrderedDict

    # Methods:
    # - popitem - Inherited from DictMethodsTest
    # + move_to_end

    @make_dynamo_test
    def test_move_to_end(self):
        d = self.thetype.fromkeys("abcde")
        self.assertEqual("".join(d), "abcde")
        d.move_to_end("b")
        self.assertEqual("".join(d), "acdeb")

        # Test OrderedDict.move_to_end
        self.thetype.move_to_end(d, "a")
        self.assertEqual("".join(d), "cdeba")

        # Test last=False
        self.thetype.move_to_end(d, "a", last=False)
        self.assertEqual("".join(d), "acdeb")

        # Test KeyError
        self.assertRaises(KeyError, d.move_to_end, "f")

    def test_cmp_eq_order(self):
        a = self.thetype.fromkeys("abc")
        b = self.thetype.fromkeys("bca")
        self.assertFalse(a == b)

    @make_dynamo_test
    def test_binop_or_return_type(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"b": 3, "c": 4})

        # Test return type
        self.assertIs(type(d1 | d2), OrderedDict)
        self.assertIs(type(dict(d1) | d2), OrderedDict)
        self.assertIs(type(d1 | dict(d2)), OrderedDict)

    @make_dynamo_test
    def test_binop_ior_return_type(self):
        d1 = self.thetype({"a": 1, "b": 2})
        d2 = self.thetype({"b": 3, "c": 4})

        # Test return type
        d3, d4 = d1.copy(), d2.copy()
        self.assertIs(type(d3.__ior__(d2)), OrderedDict)
        self.assertIs(type(dict.__ior__(d4, d2)), OrderedDict)
        self.assertIs(type(self.thetype.__ior__(d4, d2)), OrderedDict)

        d3, d4 = d1.copy(), d2.copy()
        self.assertIs(type(dict.__ior__(d3, dict(d2))), OrderedDict)
        self.assertIs(type(dict.__ior__(dict(d3), d2)), dict)
        self.assertIs(type(dict(d4).__ior__(d2)), dict)

    @make_dynamo_test
    def test_popitem_kwarg(self):
        d = self.thetype.fromkeys("abcdf")
        self.assertEqual(d.popitem(last=True), ("f", None))
        self.assertEqual(list(d), list("abcd"))
        self.assertEqual(d.popitem(last=False), ("a", None))
        self.assertEqual(list(d), list("bcd"))
        self.assertEqual(d.popitem(False), ("b", None))
        self.assertEqual(list(d), list("cd"))
        self.assertEqual(d.popitem(True), ("d", None))
        self.assertEqual(list(d), list("c"))


class OrderedDictSubclassOverload(torch._dynamo.test_case.TestCase):
    def setUp(self):
        self._prev_trace_unittest = torch._dynamo.config.enable_trace_unittest
        torch._dynamo.config.enable_trace_unittest = True
        super().setUp()

    def tearDown(self):
        torch._dynamo.config.enable_trace_unittest = self._prev_trace_unittest
        return super().tearDown()

    def assertEqual(self, x, y):
        self.assertTrue(x == y, lambda msg: f"{msg}\nExpected {x} to be equal to {y}")

    def assertNotEqual(self, x, y):
        self.assertFalse(
            x == y, lambda msg: f"{msg}\nExpected {x} to not be equal to {y}"
        )

    class OrderedDictSubclass(OrderedDict):
        def get(self, key, default=None, /):
            return default

        def move_to_end(self, key, last=True, /):
            # change the behavior to something else
            self.pop(key)

    thetype = OrderedDictSubclass

    @make_dynamo_test
    def test_move_to_end(self):
        p = self.thetype({"a": 1, "b": 2, "c": 3})
        p.move_to_end("a")
        self.assertEqual(list(p.keys()), list("bc"))


class DunderDictVariableTests(torch._dynamo.test_case.TestCase):
    """Tests for DunderDictVariable (object.__dict__ handling in Dynamo)"""

    def test_dunder_dict_items_includes_mutations(self):
        """Test that __dict__.items() includes both original and mutated keys"""

        class MyClass:
            def __init__(self):
                self.a = 1
                self.b = 2

        @torch.compile(backend="eager", fullgraph=True)
        def fn(obj):
            obj.c = 3
            items = dict(obj.__dict__.items())
            return items

        obj = MyClass()
        result = fn(obj)
        self.assertEqual(result, {"a": 1, "b": 2, "c": 3})

    def test_dunder_dict_keys_includes_mutations(self):
        """Test that __dict__.keys() includes both original and mutated keys"""

        class MyClass:
            def __init__(self):
                self.a = 1
                self.b = 2

        @torch.compile(backend="eager", fullgraph=True)
        def fn(obj):
            obj.c = 3
            obj.d = 4
            keys = sorted(obj.__dict__.keys())
            return keys

        obj = MyClass()
        result = fn(obj)
        self.assertEqual(result, ["a", "b", "c", "d"])

    def test_dunder_dict_values_includes_mutations(self):
        """Test that __dict__.values() includes both original and mutated values"""

        class MyClass:
            def __init__(self):
                self.a = 1
                self.b = 2

        @torch.compile(backend="eager", fullgraph=True)
        def fn(obj):
            obj.c = 3
            values = sorted(obj.__dict__.values())
            return values

        obj = MyClass()
        result = fn(obj)
        self.assertEqual(result, [1, 2, 3])

    def test_dunder_dict_copy_does_not_alias_instance_dict(self):
        class MyClass:
            def __init__(self):
                self.y = 1

        @torch.compile(backend="eager", fullgraph=True)
        def fn(obj):
            obj.__dict__.copy()["x"] = 4
            return "x" in obj.__dict__, dict(obj.__dict__.items())

        obj = MyClass()
        has_x, live_dict = fn(obj)
        self.assertFalse(has_x)
        self.assertEqual(live_dict, {"y": 1})
        self.assertNotIn("x", obj.__dict__)

    def test_dunder_dict_comprehension_with_mutations(self):
        """Test dict comprehension over __dict__ with mutations (scheduler use case)"""

        class SimpleScheduler:
            def __init__(self):
                self.base_lrs = [0.1]
                self.last_epoch = 0

            def state_dict(self):
                state = dict(self.__dict__.items())
                return state

        @torch.compile(backend="eager", fullgraph=True)
        def fn(scheduler):
            scheduler.last_epoch = 5
            scheduler.new_attr = "test"
            return scheduler.state_dict()

        scheduler = SimpleScheduler()
        result = fn(scheduler)
        self.assertEqual(result["base_lrs"], [0.1])
        self.assertEqual(result["last_epoch"], 5)
        self.assertEqual(result["new_attr"], "test")

    def test_dunder_dict_multiple_mutations(self):
        """Test __dict__ operations with multiple mutations"""

        class MyClass:
            def __init__(self):
                self.x = 1

        @torch.compile(backend="eager", fullgraph=True)
        def fn(obj):
            obj.y = 2
            obj.z = 3
            obj.y = 20
            items = dict(obj.__dict__.items())
            keys = set(obj.__dict__.keys())
            return items, keys

        obj = MyClass()
        items, keys = fn(obj)
        self.assertEqual(items, {"x": 1, "y": 20, "z": 3})
        self.assertEqual(keys, {"x", "y", "z"})

    def test_dunder_dict_pop_reinsert_order(self):
        # CPython appends a re-inserted key at the end of the dict rather than
        # reusing its old slot. obj.__dict__ ordering is observable, so popping
        # then re-adding a key must move it to the end (mirrors
        # test_dict.DictTest.test_splittable_pop).
        class MyClass:
            pass

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            obj = MyClass()
            obj.x, obj.y, obj.z = 1, 2, 3
            d = obj.__dict__
            d.pop("y")
            d["y"] = 42
            return list(d), d["y"]

        keys, value = fn()
        self.assertEqual(keys, ["x", "z", "y"])
        self.assertEqual(value, 42)

    def test_dunder_dict_pop_reinsert_order_with_other_mutations(self):
        # Mutating other keys after a pop must not disturb their relative order;
        # only the re-inserted popped key moves to the end. Updating an existing
        # key keeps its slot, a brand-new key appends, and the reinserted key
        # lands last.
        class MyClass:
            pass

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            obj = MyClass()
            obj.a, obj.b, obj.c = 1, 2, 3
            d = obj.__dict__
            d.pop("b")  # a, c
            d["c"] = 30  # update existing -> stays in place: a, c
            d["e"] = 5  # new key -> appended: a, c, e
            d["b"] = 20  # reinsert popped -> end: a, c, e, b
            return list(d), dict(d)

        keys, value = fn()
        self.assertEqual(keys, ["a", "c", "e", "b"])
        self.assertEqual(value, {"a": 1, "c": 30, "e": 5, "b": 20})

    def test_dunder_dict_pop_missing_raises_keyerror(self):
        class MyClass:
            pass

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            obj = MyClass()
            obj.x = 1
            d = obj.__dict__
            d.pop("x")
            try:
                d.pop("x")
                raised = False
            except KeyError:
                raised = True
            return list(d), raised

        self.assertEqual(fn(), ([], True))

    def test_dunder_dict_pop_default(self):
        class MyClass:
            pass

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            obj = MyClass()
            obj.x = 1
            d = obj.__dict__
            return d.pop("missing", "fallback"), d.pop("x"), list(d)

        self.assertEqual(fn(), ("fallback", 1, []))

    def test_dunder_dict_items_iteration(self):
        """Test iterating over __dict__.items() with mutations"""

        class MyClass:
            def __init__(self):
                self.a = 1
                self.b = 2

        @torch.compile(backend="eager", fullgraph=True)
        def fn(obj):
            obj.c = 3
            result = []
            for k, v in obj.__dict__.items():
                result.append((k, v))
            return sorted(result)

        obj = MyClass()
        result = fn(obj)
        self.assertEqual(result, [("a", 1), ("b", 2), ("c", 3)])

    def test_method_dict_direct_fullgraph(self):
        """
        Regression test: Accessing __dict__ directly on UserMethodVariable.
        This should fail with: unsupported variable type for __dict__ access
        """

        class Foo:
            def bar(self):
                return 42

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            obj = Foo()
            # Access __dict__ on bound method - creates UserMethodVariable
            method = obj.bar
            d = method.__dict__
            return d

        # This should not raise Unsupported
        fn()

    def test_dunder_dict_non_str_key_setitem(self):
        # CPython's instance __dict__ accepts arbitrary hashable keys when set
        # via the mapping API; only attribute access via setattr requires str.
        # Mirrors test_dict.DictTest.test_object_set_item_single_instance_non_str_key.
        class Foo:
            pass

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            f = Foo()
            f.__dict__[1] = 1
            f.a = "a"
            return dict(f.__dict__), list(f.__dict__)

        d, keys = fn()
        self.assertEqual(d, {1: 1, "a": "a"})
        self.assertEqual(keys, [1, "a"])

    def test_dunder_dict_non_str_key_roundtrip(self):
        # Non-str instance-dict keys must read back and delete correctly.
        class Foo:
            pass

        @torch.compile(backend="eager", fullgraph=True)
        def fn():
            f = Foo()
            d = f.__dict__
            d[1] = 10
            d[2.5] = 20
            d[(3, 4)] = 30
            got = (d[1], d[2.5], d[(3, 4)])
            del d[2.5]
            return got, dict(d)

        got, d = fn()
        self.assertEqual(got, (10, 20, 30))
        self.assertEqual(d, {1: 10, (3, 4): 30})


if __name__ == "__main__":
    from torch._dynamo.test_case import run_tests

    run_tests()
