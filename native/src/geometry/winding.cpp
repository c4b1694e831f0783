// Per-node data for fast winding numbers (Barill et al., "Fast Winding Numbers for Soups and
// Clouds", SIGGRAPH 2018): far from a node, its triangles' solid angle is approximated by the
// Taylor expansion of the dipole field about the node's area-weighted centre c:
//   w(q) ~ f(c).N + J(c) : M,   f(x) = (x - q) / (4 pi |x - q|^3),  J = df/dx,
//   N = sum a_t n_t,  M = sum a_t n_t (x_t - c)^T   (a_t n_t = cross(b - a, c - a) / 2,
// x_t the triangle centroid). r bounds the distance from c to every vertex below the node, so
// the query (mesh.h, mesh_winding_number) uses the expansion when |q - c| > accuracy * r.
// Layout per node: WnNode in bvh_build.h (80 bytes), mirrored by wp::mesh_wn_node_t.
#include <cmath>
#include <cstdint>

#include "bvh_build.h"

namespace wpi_geometry {

namespace {

struct V3 {
    double x, y, z;
};
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator*(V3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double norm(V3 a) { return std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

V3 load(const float* p, int32_t i) { return {p[3 * i], p[3 * i + 1], p[3 * i + 2]}; }

// the node's sums in double (converted to float once at the end)
struct Acc {
    V3 c{0, 0, 0};
    double area = 0, r = 0;
    V3 n{0, 0, 0};
    double m[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
};

void add_outer(double* m, V3 n, V3 d)   // m += n d^T
{
    const double nv[3] = {n.x, n.y, n.z}, dv[3] = {d.x, d.y, d.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[3 * i + j] += nv[i] * dv[j];
}

}  // namespace

void winding_data(const BvhNode* nodes, int num_nodes, const int32_t* items, const float* points,
                  const int32_t* indices, WnNode* out)
{
    std::vector<Acc> acc(num_nodes > 0 ? num_nodes : 0);
    for (int i = num_nodes - 1; i >= 0; --i) {   // children follow their parents
        const BvhNode& node = nodes[i];
        Acc& a = acc[i];
        if (node.left < 0) {
            const int first = ~node.left, count = node.right;
            V3 mean{0, 0, 0};
            for (int s = first; s < first + count; ++s) {
                const int32_t* t = indices + 3 * items[s];
                const V3 p0 = load(points, t[0]), p1 = load(points, t[1]), p2 = load(points, t[2]);
                const V3 an = cross(p1 - p0, p2 - p0) * 0.5, x = (p0 + p1 + p2) * (1.0 / 3.0);
                const double ar = norm(an);
                a.c = a.c + x * ar;
                a.area += ar;
                a.n = a.n + an;
                mean = mean + x;
            }
            a.c = a.area > 0 ? a.c * (1.0 / a.area) : mean * (count ? 1.0 / count : 0.0);
            for (int s = first; s < first + count; ++s) {
                const int32_t* t = indices + 3 * items[s];
                const V3 p0 = load(points, t[0]), p1 = load(points, t[1]), p2 = load(points, t[2]);
                const V3 an = cross(p1 - p0, p2 - p0) * 0.5, x = (p0 + p1 + p2) * (1.0 / 3.0);
                add_outer(a.m, an, x - a.c);
                for (V3 v : {p0, p1, p2}) a.r = std::fmax(a.r, norm(v - a.c));
            }
        } else {
            const Acc& l = acc[node.left];
            const Acc& r = acc[node.right];
            a.area = l.area + r.area;
            a.c = a.area > 0 ? (l.c * l.area + r.c * r.area) * (1.0 / a.area) : (l.c + r.c) * 0.5;
            a.n = l.n + r.n;
            for (const Acc* k : {&l, &r}) {   // shift each child's moment to the new centre
                for (int j = 0; j < 9; ++j) a.m[j] += k->m[j];
                add_outer(a.m, k->n, k->c - a.c);
                a.r = std::fmax(a.r, norm(k->c - a.c) + k->r);
            }
        }
        WnNode& o = out[i];
        o.c[0] = float(a.c.x); o.c[1] = float(a.c.y); o.c[2] = float(a.c.z);
        o.r = float(a.r) * 1.0001f + 1e-7f;   // rounding to float must not shrink the bound
        o.n[0] = float(a.n.x); o.n[1] = float(a.n.y); o.n[2] = float(a.n.z);
        o.area = float(a.area);
        for (int j = 0; j < 9; ++j) o.m[j] = float(a.m[j]);
        o.pad[0] = o.pad[1] = o.pad[2] = 0.0f;
    }
}

}  // namespace wpi_geometry
