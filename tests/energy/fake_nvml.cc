// A stand-in for libnvidia-ml.so.1 exporting the NVML symbols ergobench uses, for tests.
// Two GPUs: gpu0 has an energy counter that advances 250 J per call (1 kW at 250 ms
// samples); gpu1 is pre-Volta (no counter) and draws a steady 100.5 W.
#include <cstdlib>

extern "C" {

typedef void* nvmlDevice_t;
static int devices[2];
static unsigned long long energy_mj = 1000000;

int nvmlInit_v2(void) { return getenv("FAKE_NVML_INIT_FAILS") ? 3 : 0; }
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned int* count) { *count = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* device) {
  if (i > 1) return 2;
  *device = &devices[i];
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* mj) {
  if (device != &devices[0]) return 3; // NVML_ERROR_NOT_SUPPORTED
  *mj = energy_mj;
  energy_mj += 250000;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* mw) {
  *mw = device == &devices[0] ? 1000000 : 100500;
  return 0;
}

}  // extern "C"
