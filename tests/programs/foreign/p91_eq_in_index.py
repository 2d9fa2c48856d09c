import torch

class Tok:
    def __init__(self, s):
        self.s = s
    def __eq__(self, o):
        return isinstance(o, Tok) and o.s.lower() == self.s.lower()
    __hash__ = None

def lookup(x, vocab, q):
    found = q in vocab
    idx = vocab.index(q) if found else -1
    n = vocab.count(q)
    return x * (idx + 1), found, idx, n

def main():
    torch.set_num_threads(1)
    vocab = [Tok("a"), Tok("B"), Tok("c")]
    for i, q in enumerate(("b", "Z", "A", "c")):
        if i == 2:
            vocab.append(Tok("a"))
        y, f, idx, n = lookup(torch.ones(2), vocab, Tok(q))
        print(i, y.tolist(), f, idx, n)
