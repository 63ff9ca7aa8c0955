// The bench kernel of benches/lib.rs (`build_kernel`, 106 MIR instructions) written by hand in
// GLSL 4.50 + GL_KHR_shader_subgroup, op by op from its MIR: the grid-stride loop, the divergent
// if/else, the full-subgroup max reduction, the 8-lane inclusive add scan, the shuffle-xor, the
// Horner polynomial and the integer hash. Timed with
//   glslangValidator -V --target-env vulkan1.1 benches/glsl/bench_kernel.comp -o /tmp/b.spv
// beside qd's MIR → SPIR-V in docs/performance.md. (GLSL has no 8-lane clustered scan; the scan is
// the same Hillis–Steele shuffle-up steps qd emits for it on lavapipe.)
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require

layout(local_size_x = 256) in;
layout(set = 0, binding = 0) buffer Src { float src[]; };
layout(set = 0, binding = 1) buffer Idx { uint idx[]; };
layout(set = 0, binding = 2) buffer Dst { float dst[]; };
layout(push_constant) uniform Params { uint n; float scale; };

uint scan8(uint v) {
    uint tl = gl_SubgroupInvocationID & 7u;
    for (uint k = 1u; k < 8u; k <<= 1u) {
        uint p = subgroupShuffleUp(v, k);
        if (tl >= k) v = p + v;
    }
    return v;
}

void main() {
    uint stride = gl_WorkGroupSize.x * gl_NumWorkGroups.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        float x = src[i];
        uint k = idx[i];
        uint k1 = k + 1u;
        uint k2 = k1 & 1023u;
        uint k3 = k2 * k1;
        uint k4 = k3 ^ k;
        uint k5 = k4 >> 3u;
        uint k6 = uint(bitCount(k5));
        uint k7 = uint(31 - findMSB(k6));
        uint k8 = min(k7, k5);
        uint j = k8 % n;
        float y = src[j];
        float s = x * scale;
        float t = fma(y, s, x);
        float acc = sqrt(abs(t));
        if (t > 0.0) {
            acc = acc * 2.0 + float(k6);
        } else {
            acc = max(-acc, 0.5);
        }
        float a2 = acc + float(gl_SubgroupInvocationID);
        float red = subgroupMax(a2);
        float scf = float(scan8(k6));
        float z = red - scf;
        float z2 = min(z, a2);
        float z3 = max(z2, -1.0e6);
        uint bits2 = bitfieldReverse(floatBitsToUint(z3));
        float w = (bits2 & 1u) != 0u ? z3 : a2;
        float total = w + subgroupShuffleXor(w, 1u);
        float poly = total;
        poly = fma(poly, z3, 0.5);
        poly = fma(poly, z3, -1.25);
        poly = fma(poly, z3, 2.0);
        poly = fma(poly, z3, 0.125);
        poly = fma(poly, z3, -3.5);
        poly = fma(poly, z3, 1.0);
        poly = fma(poly, z3, 0.75);
        poly = fma(poly, z3, -0.0625);
        uint h = k;
        h *= 0x9E3779B9u; h ^= h >> 16u;
        h *= 0x85EBCA6Bu; h ^= h >> 16u;
        h *= 0xC2B2AE35u; h ^= h >> 16u;
        h *= 0x27D4EB2Fu; h ^= h >> 16u;
        dst[i] = poly + float(h);
    }
}
