import io, logging, torch

stream = io.StringIO()
h = logging.StreamHandler(stream)
h.setFormatter(logging.Formatter("%(levelname)s %(funcName)s:%(lineno)d %(message)s"))
log = logging.getLogger("foreign.p108")
log.addHandler(h)
log.setLevel(logging.DEBUG)
log.propagate = False

def work(x, k):
    y = x * k
    log.info("start %d", k)
    z = y.sum()
    print("mid", z)
    log.warning("end %s", z.item())
    return z

def main():
    torch.set_num_threads(1)
    for k in (1, 2, 3, 4):
        work(torch.ones(2), k)
    print(stream.getvalue())
