"""Hand-written PTX kernels and known device limits for the CUDA driver and launcher tests.

The kernels are written by hand (not by kernellab's code generator) so that the driver side is
tested on its own: loading, launching, parameter passing, shared memory and resource checks.
"""

from __future__ import annotations

import pytest

from kernellab.backends.cuda import driver
from kernellab.backends.cuda.driver import DeviceProperties

# The H200's limits as the driver reports them (compute capability 9.0).
H200 = DeviceProperties(
    name="NVIDIA H200", ordinal=0, major=9, minor=0, sm_count=132, warp_size=32, max_threads_per_block=1024,
    max_block_dim=(1024, 1024, 64), max_grid_dim=(2147483647, 65535, 65535), max_shared_per_block=49152,
    max_shared_per_block_optin=232448, max_shared_per_sm=233472, max_registers_per_block=65536,
    max_registers_per_sm=65536, max_threads_per_sm=2048)

gpu = pytest.mark.skipif(not driver.available(), reason="needs a CUDA device")

SOURCE_FILE = "/kernels/add.py"

# out[i] = x[i] + y[i] for i < n (one element per thread); .loc lines point into SOURCE_FILE.
ADD_PTX = f"""
.version 8.0
.target sm_90a
.address_size 64
.file 1 "{SOURCE_FILE}"

.visible .entry add_kernel(
    .param .u64 add_kernel_param_0,
    .param .u64 add_kernel_param_1,
    .param .u64 add_kernel_param_2,
    .param .u32 add_kernel_param_3
)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    .loc 1 7 0
    ld.param.u64 %rd1, [add_kernel_param_0];
    ld.param.u64 %rd2, [add_kernel_param_1];
    ld.param.u64 %rd3, [add_kernel_param_2];
    ld.param.u32 %r2, [add_kernel_param_3];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    .loc 1 8 0
    setp.ge.s32 %p1, %r1, %r2;
    @%p1 bra $L__done;
    mul.wide.s32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    add.s64 %rd8, %rd2, %rd5;
    .loc 1 9 0
    ld.global.f32 %f1, [%rd6];
    ld.global.f32 %f2, [%rd8];
    add.f32 %f3, %f1, %f2;
    add.s64 %rd10, %rd3, %rd5;
    .loc 1 10 0
    st.global.f32 [%rd10], %f3;
$L__done:
    ret;
}}
"""

ADD_TYPES = ["*fp32", "*fp32", "*fp32", "i32"]

# Writes the bits of each scalar parameter to out + 8 * i: the launcher's parameter packing,
# checked on the device.  Parameter declarations as LLVM's NVPTX back end emits them.
ECHO_TYPES = ["*u8", "i1", "i8", "i16", "i32", "i64", "u32", "fp16", "bf16", "fp32", "fp64"]
ECHO_PTX = """
.version 8.0
.target sm_90a
.address_size 64

.visible .entry echo(
    .param .u64 echo_param_0,
    .param .u8 echo_param_1,
    .param .u8 echo_param_2,
    .param .u16 echo_param_3,
    .param .u32 echo_param_4,
    .param .u64 echo_param_5,
    .param .u32 echo_param_6,
    .param .align 2 .b8 echo_param_7[2],
    .param .align 2 .b8 echo_param_8[2],
    .param .f32 echo_param_9,
    .param .f64 echo_param_10
)
{
    .reg .b16 %rs<5>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;

    ld.param.b64 %rd1, [echo_param_0];
    ld.param.b8 %rs1, [echo_param_1];
    st.global.b8 [%rd1], %rs1;
    ld.param.b8 %rs2, [echo_param_2];
    st.global.b8 [%rd1+8], %rs2;
    ld.param.b16 %rs3, [echo_param_3];
    st.global.b16 [%rd1+16], %rs3;
    ld.param.b32 %r1, [echo_param_4];
    st.global.b32 [%rd1+24], %r1;
    ld.param.b64 %rd2, [echo_param_5];
    st.global.b64 [%rd1+32], %rd2;
    ld.param.b32 %r2, [echo_param_6];
    st.global.b32 [%rd1+40], %r2;
    ld.param.b16 %rs4, [echo_param_7];
    st.global.b16 [%rd1+48], %rs4;
    ld.param.b16 %rs4, [echo_param_8];
    st.global.b16 [%rd1+56], %rs4;
    ld.param.b32 %r3, [echo_param_9];
    st.global.b32 [%rd1+64], %r3;
    ld.param.b64 %rd3, [echo_param_10];
    st.global.b64 [%rd1+72], %rd3;
    ret;
}
"""

# Dynamic shared memory: thread t writes t + 1 at byte (shared - 4 * ntid + 4 * t), syncs, and
# copies its neighbour's value ((t + 1) % ntid) to out[t]: right only when the whole dynamic
# allocation (over 48 KiB in the test) exists.
SHARED_PTX = """
.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 dynamic_smem[];

.visible .entry shared_roll(
    .param .u64 shared_roll_param_0,
    .param .u32 shared_roll_param_1
)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [shared_roll_param_0];
    ld.param.u32 %r1, [shared_roll_param_1];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    shl.b32 %r4, %r3, 2;
    sub.u32 %r5, %r1, %r4;
    mov.u32 %r6, dynamic_smem;
    add.u32 %r6, %r6, %r5;
    shl.b32 %r7, %r2, 2;
    add.u32 %r8, %r6, %r7;
    add.u32 %r9, %r2, 1;
    st.shared.u32 [%r8], %r9;
    bar.sync 0;
    rem.u32 %r10, %r9, %r3;
    shl.b32 %r10, %r10, 2;
    add.u32 %r10, %r6, %r10;
    ld.shared.u32 %r11, [%r10];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r11;
    ret;
}
"""


def pressure_ptx(count: int, name: str = "pressure") -> str:
    """A kernel that loads ``count`` floats with volatile loads (kept in order) before storing
    them back in reverse: ``count`` values live at once, so few registers force spills and
    many values force many registers."""
    loads = "\n".join(f"    ld.volatile.global.f32 %f{i}, [%rd1+{4 * i}];" for i in range(count))
    stores = "\n".join(f"    st.volatile.global.f32 [%rd1+{4 * i}], %f{count - 1 - i};" for i in range(count))
    return f"""
.version 8.0
.target sm_90a
.address_size 64

.visible .entry {name}(
    .param .u64 {name}_param_0
)
{{
    .reg .f32 %f<{count}>;
    .reg .b64 %rd<2>;

    ld.param.u64 %rd1, [{name}_param_0];
{loads}
{stores}
    ret;
}}
"""


def static_shared_ptx(nbytes: int) -> str:
    """A kernel declaring ``nbytes`` of static shared memory."""
    return f"""
.version 8.0
.target sm_90a
.address_size 64

.visible .entry static_shared(
    .param .u64 static_shared_param_0
)
{{
    .shared .align 4 .b8 buffer[{nbytes}];
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;

    ld.param.u64 %rd1, [static_shared_param_0];
    mov.u32 %r1, buffer;
    st.shared.u32 [%r1], 7;
    bar.sync 0;
    ld.shared.u32 %r2, [%r1];
    st.global.u32 [%rd1], %r2;
    ret;
}}
"""
