import torch


class DivergenceError(Exception):
    def __init__(self, step, value):
        super().__init__(f"diverged at step {step}")
        self.step = step
        self.value = value


def check(values, limit):
    running = torch.zeros(())
    for step, v in enumerate(values):
        running = running + v
        if running.abs() > limit:
            raise DivergenceError(step, running)
    return running


def guarded(values, limit):
    try:
        return "ok", check(values, limit).item()
    except DivergenceError as e:
        try:
            raise ValueError("wrapped") from e
        except ValueError as w:
            return "err", (str(w), str(w.__cause__), w.__cause__.step, w.__cause__.value.item())


def main():
    torch.set_num_threads(1)
    vals = [torch.tensor(float(v)) for v in (1, 2, -5, 4, 10)]
    for limit in (100, 3.5, 5.5, 0.5):
        print(guarded(vals, limit))
    try:
        check(vals, 2)
    except DivergenceError as e:
        print(type(e).__name__, e, e.args, e.value)
