/* the emulator stands in for CUDA (tests/emu/cuda_emu.h, forced in front) */
