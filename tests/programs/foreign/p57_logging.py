import logging, torch

class ListHandler(logging.Handler):
    def __init__(self):
        super().__init__()
        self.msgs = []
    def emit(self, record):
        self.msgs.append(record.getMessage())

log = logging.getLogger("foreign.p57")
h = ListHandler()
log.addHandler(h)
log.propagate = False

def train(w, x):
    y = w * x
    log.info("y=%s", y)
    log.debug("dbg %d", y.numel())
    w.sub_(0.5 * y)
    log.warning("w=%s", w)
    return y, len(h.msgs)

def main():
    torch.set_num_threads(1)
    w = torch.ones(2)
    for i, lvl in enumerate((logging.INFO, logging.WARNING, logging.DEBUG, logging.ERROR)):
        log.setLevel(lvl)
        y, n = train(w, torch.full((2,), float(i)))
        print(i, y.tolist(), n, h.msgs[-2:])
