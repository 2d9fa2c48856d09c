import torch


class StepError(Exception):
    pass


def risky(x, i):
    y = x * i
    if i == 2:
        raise StepError(f"bad step {i}")
    if i == 3:
        return y[10]
    return y.sum()


def loop(x):
    log = []
    for i in range(5):
        try:
            try:
                v = risky(x, i)
            except StepError as e:
                raise RuntimeError("wrapped") from e
            except IndexError:
                raise ValueError("index problem")
            log.append(round(v.item(), 2))
        except (RuntimeError, ValueError) as outer:
            ctx = outer.__context__
            cause = outer.__cause__
            log.append((type(outer).__name__, type(ctx).__name__, type(cause).__name__ if cause else None,
                        outer.__suppress_context__))
    return log


def main():
    torch.set_num_threads(1)
    print(loop(torch.ones(2)))
    print(loop(torch.arange(3.0)))
