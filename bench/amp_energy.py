"""What the PyTorch-Python peers (resnet50_pytorch.py, gpt_pytorch.py, translation_pytorch.py)
share on a GPU: autocast and, for fp16, a loss scaler, as torch.amp has them; the GPU's energy
counter from NVML; and the caching allocator's memory peaks.
Works with Debian's PyTorch 1.13 on the CPU (fp32: no autocast, no scaler)."""

import torch


class Precision:
    """Autocast for the forward pass and the backward/step of a precision (fp32, bf16, fp16)."""

    def __init__(self, device, precision):
        self.autocast = dict(device_type=device.type, enabled=precision != "fp32",
                             dtype=torch.float16 if precision == "fp16" else torch.bfloat16)
        self.scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None

    def forward(self):
        return torch.autocast(**self.autocast)

    def backward_and_step(self, loss, optimizer, clip=None, parameters=None):
        if self.scaler is None:
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(parameters, clip)
            optimizer.step()
            return
        self.scaler.scale(loss).backward()
        if clip:
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(parameters, clip)
        self.scaler.step(optimizer)
        self.scaler.update()


class Energy:
    """The GPU's energy counter (NVML, millijoules) from construction on; None on a CPU."""

    def __init__(self, device):
        self.handle = None
        if device.type == "cuda":
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(device.index or 0)
            self.start = pynvml.nvmlDeviceGetTotalEnergyConsumption(self.handle)

    def joules(self):
        if self.handle is None:
            return None
        return (self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle) - self.start) / 1000


def memory_peaks(device):
    """The caching allocator's peaks since the process began, as ergobench's peakTensorBytes and
    peakReservedBytes on a GPU; nothing on a CPU."""
    if device.type != "cuda":
        return {}
    return {"peakTensorBytes": torch.cuda.max_memory_allocated(device),
            "peakReservedBytes": torch.cuda.max_memory_reserved(device)}
