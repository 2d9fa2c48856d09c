import torch

def f(x):
    det = torch.are_deterministic_algorithms_enabled()
    gr = torch.is_grad_enabled()
    inf = torch.is_inference_mode_enabled()
    return (x * 2 if det else x * 3).tolist(), det, gr, inf, torch.get_num_threads()

def main():
    torch.set_num_threads(1)
    for i in range(4):
        torch.use_deterministic_algorithms(i % 2 == 1)
        print(i, f(torch.ones(2)))
    torch.use_deterministic_algorithms(False)
    with torch.inference_mode():
        print(f(torch.ones(2)))
