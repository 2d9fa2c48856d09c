import torch


def spectrum(x):
    f = torch.fft.rfft(x)
    mag = f.abs()
    peak = int(mag[1:].argmax()) + 1
    c = f[peak]
    return peak, round(c.real.item(), 3), round(c.imag.item(), 3), round(torch.angle(c).item(), 3), f.dtype


def rotate(z, deg):
    r = torch.polar(torch.ones(()), torch.tensor(deg * 3.14159265 / 180))
    w = z * r
    out = complex(w.sum().item())
    return round(out.real, 3), round(out.imag, 3), torch.view_as_real(w).shape


def main():
    torch.set_num_threads(1)
    t = torch.arange(8.0)
    for k in (1, 2, 3):
        print(spectrum(torch.sin(t * k * 2 * 3.14159265 / 8)))
    z = torch.tensor([1 + 1j, 2 - 1j])
    for deg in (0, 90, 180):
        print(rotate(z, deg))
