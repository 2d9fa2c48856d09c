"""Training-loop statements: a model, an optimizer and an LR scheduler kept across calls.

A program that trains holds ``NET`` (a linear layer and a batch norm), ``OPT`` (SGD with
momentum, Adam, AdamW or RMSprop over ``NET``'s parameters) and ``SCHED`` (a step, lambda or
exponential LR schedule) at module level, and ``fn`` writes what a training loop does:
forward and ``loss.backward()``, reads of ``.grad`` (``None`` after ``zero_grad()``),
``OPT.step()``/``zero_grad()``, ``SCHED.step()`` and the learning rate it set,
``torch.no_grad()`` updates of parameters in place (``.data`` included), ``train()``/``eval()``
switches and branches on ``training``, ``detach``/``requires_grad_``, hooks on tensors and
parameters (logging to ``GRADS`` or scaling the gradient), ``torch.autograd.grad`` and
``enable_grad`` inside ``no_grad``, gradient clipping, learning rates written by hand,
frozen parameters, ``retain_grad``, forward hooks, ``torch.set_grad_enabled`` called (not
entered), ``autocast``. The harness compares the model (parameters, buffers,
gradients, train flags), the optimizer's and scheduler's ``state_dict``, ``GRADS`` and the
grad mode after every call (``diff.py``), not only what ``fn`` returns.

A mixin of ``ProgramBuilder`` like ``constructs.ExactnessConstructs``.
"""
from __future__ import annotations

from autograph.testing.fuzz.static import Ty

_OPTIMIZERS = ("OPT_SGD", "OPT_ADAM", "OPT_ADAMW", "OPT_RMSPROP")
_SCHEDULERS = ("SCHED_STEP", "SCHED_LAMBDA", "SCHED_EXP")
_PARAMETERS = ("NET.lin.weight", "NET.lin.bias", "NET.norm.weight", "NET.norm.bias")
_LOSSES = ("NET({x}).pow(2).mean()", "(NET({x}) * {x}).sum()", "F.mse_loss(NET({x}), {x})",
           "NET({x}).tanh().sum() * 0.5")
_HOOKS = ("lambda g: GRADS.append(round(float(g.sum()), 4))", "lambda g: g * 2",
          "lambda g: GRADS.append(tuple(g.shape))", "lambda g: g.clamp(-0.1, 0.1)")


class TrainingConstructs:
    """The ``training`` statement kind; ``setup_training`` decides whether a program trains."""

    trains: bool = False

    def setup_training(self) -> None:
        self.trains = "training" in self.config.features and self.c.chance(0.35)
        if self.trains:
            self.fixtures |= {"Net", self.pick(_OPTIMIZERS), self.pick(_SCHEDULERS)}

    def training_kinds(self, depth: int) -> list[tuple[str, int]]:
        return [("training", 12)] if self.trains else []

    def _batch(self) -> str:
        """An (A, B) tensor: ``NET``'s input (batch A, features B)."""
        return self.pick(self.ab_tensors() or ["x"])

    def _loss(self) -> str:
        return self.bind("loss", self.pick(_LOSSES).format(x=self._batch()), Ty("tensor", ()))

    def stmt_training(self, depth: int) -> None:
        roll = self.c.integer(0, 20)
        x = self._batch()
        if roll <= 1:  # forward and backward, maybe twice through one graph
            loss = self._loss()
            if self.c.chance(0.2):
                self.emit(f"{loss}.backward(retain_graph=True)")
            self.emit(f"{loss}.backward()")
        elif roll == 13:  # a whole step
            self.emit(f"{self._loss()}.backward()")
            steps = ["OPT.step()", "OPT.zero_grad()", "SCHED.step()"]
            for line in steps[:self.c.integer(1, 3)]:
                self.emit(line)
        elif roll == 2:  # read a gradient: None until a backward, and again after zero_grad()
            grad = self.bind("gr", f"{self.pick(_PARAMETERS)}.grad", Ty("grad"))
            if self.c.chance(0.5):
                self.bind("flag", f"{grad} is None", Ty("bool"))
            else:
                self.bind("t", f"{x} + ({grad}.sum() if {grad} is not None else 0.0)", Ty("tensor", ("A", "B")))
        elif roll == 3:
            self.emit("OPT.step()")
        elif roll == 4:
            self.emit(self.pick(("OPT.zero_grad()", "OPT.zero_grad(set_to_none=False)", "NET.zero_grad()")))
        elif roll == 5:  # the schedule moves the learning rate the next step uses
            self.emit("SCHED.step()")
            lr = self.pick(("OPT.param_groups[0]['lr']", "SCHED.get_last_lr()[0]"))
            self.bind("f", lr, Ty("float"))
        elif roll == 6:  # a hand-written update of the parameters, in place, under no_grad
            with self.block("with torch.no_grad():"):
                with self.block("for p in NET.parameters():"):
                    with self.block("if p.grad is not None:"):
                        self.emit(self.pick(("p.add_(p.grad, alpha=-0.05)", "p -= 0.05 * p.grad",
                                             "p.data.mul_(0.9)", "p.copy_(p - 0.1 * p.grad.sign())")))
        elif roll == 7:  # train/eval switches, and code that branches on the mode
            if self.c.chance(0.5):
                self.emit(self.pick(("NET.train()", "NET.eval()", "NET.train(False)", "NET.norm.eval()")))
            else:
                with self.block("if NET.training:"):
                    self.bind("t", f"NET({x})", Ty("tensor", ("A", "B")))
                with self.block("else:"):
                    self.emit("NET.train()")
        elif roll == 8:  # a leaf of the function's own, its gradient read back
            leaf = self.bind("v", f"{x}.detach(){self.pick(('.requires_grad_()', '.clone().requires_grad_(True)'))}",
                             Ty("tensor", ("A", "B")))
            self.emit(f"({leaf} * {leaf}.cos()).sum().backward()")
            self.bind("t", f"{leaf}.grad * 2 + {x}", Ty("tensor", ("A", "B")))
        elif roll == 9:  # hooks: on a leaf of the function's own, or on a parameter (kept or removed)
            on_parameter = self.c.chance(0.5)
            target = self.pick(_PARAMETERS[:2]) if on_parameter else \
                self.bind("v", f"{x}.detach().requires_grad_()", Ty("tensor", ("A", "B")))
            handle = self.fresh("h")
            self.emit(f"{handle} = {target}.register_hook({self.pick(_HOOKS)})")
            loss = self._loss() if on_parameter else self.bind(
                "loss", f"({target} ** 2).sum() + NET({target}).sum()", Ty("tensor", ()))
            self.emit(f"{loss}.backward()")
            if self.c.chance(0.7):
                self.emit(f"{handle}.remove()")
            if not on_parameter:
                self.bind("t", f"{target}.grad + {x}", Ty("tensor", ("A", "B")))
        elif roll == 10:  # gradients returned instead of accumulated
            leaf = self.bind("v", f"{x}.detach().requires_grad_()", Ty("tensor", ("A", "B")))
            grad = self.fresh("t")
            self.emit(f"({grad},) = torch.autograd.grad(NET({leaf}).sin().sum(), [{leaf}])")
            self.env[grad] = Ty("tensor", ("A", "B"))
        elif roll == 11:  # enable_grad inside no_grad
            with self.block("with torch.no_grad():"):
                self.bind("t", f"NET({x}) * 2", Ty("tensor", ("A", "B")))
                with self.block("with torch.enable_grad():"):
                    inner = self.bind("t", f"NET({x}).sum()", Ty("tensor", ()))
                    self.emit(f"{inner}.backward()")
            self.bind("flag", "NET.lin.weight.grad is None", Ty("bool"))
        elif roll == 12:  # .data: a parameter's values without autograd
            self.bind("t", f"{x} * NET.lin.weight.data.sum()", Ty("tensor", ("A", "B")))
            if self.c.chance(0.5):
                self.emit("NET.lin.weight.data.clamp_(-0.3, 0.3)")
        elif roll == 14:  # gradient clipping: scales every .grad in place, returns the norm
            self.bind("t", self.pick(("torch.nn.utils.clip_grad_norm_(NET.parameters(), 0.5)",
                                      "torch.nn.utils.clip_grad_norm_(NET.parameters(), 1.0, norm_type=1.0)")),
                      Ty("tensor", ()))
        elif roll == 15:  # the learning rate written by hand, read back
            self.emit(self.pick(("OPT.param_groups[0]['lr'] = OPT.param_groups[0]['lr'] * 0.5",
                                 "for group in OPT.param_groups:\n        group['lr'] = 0.02".replace(
                                     "\n        ", "\n" + "    " * (self.indent + 1)))))
        elif roll == 16:  # freezing and unfreezing a parameter
            param = self.pick(_PARAMETERS)
            self.emit(f"{param}.requires_grad_({self.pick(('False', 'True', 'not ' + param + '.requires_grad'))})")
            self.bind("flag", f"{param}.requires_grad", Ty("bool"))
        elif roll == 17:  # a non-leaf's gradient kept with retain_grad, and the losses logged
            out = self.bind("t", f"NET({x}) * 2", Ty("tensor", ("A", "B")))
            self.emit(f"{out}.retain_grad()")
            self.emit(f"{out}.sum().backward()")
            self.emit(f"GRADS.append(round({out}.grad.sum().item(), 4))")
        elif roll == 18:  # hooks on the module: counters around forward
            handle = self.fresh("h")
            self.emit(f"{handle} = NET.{self.pick(('register_forward_hook', 'register_forward_pre_hook'))}"
                      f"(lambda *a: GRADS.append(len(a)))")
            self.bind("t", f"NET({x})", Ty("tensor", ("A", "B")))
            if self.c.chance(0.8):
                self.emit(f"{handle}.remove()")
        elif roll == 20:  # mixed precision: autocast's state inside, and after an error leaves it
            with self.block("with torch.autocast('cpu', dtype=torch.bfloat16):"):
                out = self.bind("t", f"NET({x})", Ty("tensor", ("A", "B")))
                self.bind("flag", "torch.is_autocast_enabled('cpu')", Ty("bool"))
                if self.int_param and self.c.chance(0.5):
                    self.emit(f"{out} = {out} + {out}[{out}.shape[0] - 1 + {self.int_param} % 2]")
            self.bind("t", f"{out}.float() + {x}", Ty("tensor", ("A", "B")))
        else:  # grad mode switched by a call (not a with block): it outlives the call
            self.emit(self.pick(("torch.set_grad_enabled(False)", "torch.set_grad_enabled(True)",
                                 "torch.autograd.set_grad_enabled(False)")))
            self.bind("t", f"NET({x}) + {x}", Ty("tensor", ("A", "B")))
