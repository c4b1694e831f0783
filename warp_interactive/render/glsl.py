"""The renderer's GLSL programs (OpenGL 3.3 core).

Shapes: instanced triangle meshes, each instance with its model matrix and two colours (a
checkerboard in texture space mixes them, as on the ground plane). Points: camera-facing quads
whose fragments are cut to the sphere by a ray test and get the sphere's depth, so a point
cloud costs two triangles per point instead of a tessellated sphere. Lines (grid), sky.
"""

SHAPE_VS = """
#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec4 i_m0;
layout(location = 4) in vec4 i_m1;
layout(location = 5) in vec4 i_m2;
layout(location = 6) in vec4 i_m3;
layout(location = 7) in vec3 i_color1;
layout(location = 8) in vec3 i_color2;
uniform mat4 u_world;
uniform mat4 u_view;
uniform mat4 u_proj;
out vec3 v_pos;
out vec3 v_normal;
out vec2 v_uv;
out vec3 v_color1;
out vec3 v_color2;
void main() {
    mat4 model = u_world * mat4(i_m0, i_m1, i_m2, i_m3);
    vec4 p = model * vec4(a_pos, 1.0);
    v_pos = p.xyz;
    // normals follow the inverse transpose (non-uniform instance scales)
    v_normal = transpose(inverse(mat3(model))) * a_normal;
    v_uv = a_uv;
    v_color1 = i_color1;
    v_color2 = i_color2;
    gl_Position = u_proj * u_view * p;
}
"""

_LIGHTING = """
uniform vec3 u_light_dir;
uniform vec3 u_eye;
vec3 shade(vec3 albedo, vec3 n, vec3 pos) {
    n = normalize(n);
    vec3 l = normalize(u_light_dir);
    vec3 v = normalize(u_eye - pos);
    float diffuse = max(dot(n, l), 0.0);
    float fill = 0.5 + 0.5 * n.y;   // sky light from above
    float spec = pow(max(dot(reflect(-l, n), v), 0.0), 32.0);
    return albedo * (0.25 + 0.2 * fill + 0.6 * diffuse) + vec3(0.15 * spec);
}
"""

SHAPE_FS = """
#version 330 core
in vec3 v_pos;
in vec3 v_normal;
in vec2 v_uv;
in vec3 v_color1;
in vec3 v_color2;
out vec4 frag_color;
""" + _LIGHTING + """
void main() {
    float checker = mod(floor(v_uv.x) + floor(v_uv.y), 2.0);
    vec3 albedo = mix(v_color1, v_color2, checker);
    frag_color = vec4(shade(albedo, v_normal, v_pos), 1.0);
}
"""

POINT_VS = """
#version 330 core
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec3 i_center;
layout(location = 2) in float i_radius;
layout(location = 3) in vec3 i_color;
uniform mat4 u_world;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_scale;
out vec3 v_view_pos;
flat out vec3 v_center;
flat out float v_radius;
flat out vec3 v_color;
void main() {
    vec3 c = (u_view * u_world * vec4(i_center, 1.0)).xyz;
    float r = i_radius * u_scale;
    float d = length(c);
    v_center = c;
    v_radius = r;
    v_color = i_color;
    if (d <= r) {            // the eye is inside the sphere: nothing to draw
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        v_view_pos = c;
        return;
    }
    // a square through the centre facing the eye; half size r d / sqrt(d^2 - r^2) bounds the
    // sphere's silhouette seen from the eye
    vec3 w = c / d;
    vec3 helper = abs(w.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    // (u, v) right and up as seen from the eye, so the quad is wound counter-clockwise
    vec3 u = normalize(cross(w, helper));
    vec3 v = cross(u, w);
    float h = r * d / sqrt(d * d - r * r);
    vec3 p = c + h * (a_corner.x * u + a_corner.y * v);
    v_view_pos = p;
    gl_Position = u_proj * vec4(p, 1.0);
}
"""

POINT_FS = """
#version 330 core
in vec3 v_view_pos;
flat in vec3 v_center;
flat in float v_radius;
flat in vec3 v_color;
uniform mat4 u_proj;
uniform vec3 u_light_dir_view;
out vec4 frag_color;
void main() {
    // the ray from the eye (the origin of view space) through this fragment, cut with the sphere
    vec3 dir = normalize(v_view_pos);
    float b = dot(dir, v_center);
    float disc = b * b - dot(v_center, v_center) + v_radius * v_radius;
    if (disc < 0.0) discard;
    float t = b - sqrt(disc);
    vec3 hit = t * dir;
    vec3 n = (hit - v_center) / v_radius;
    vec4 clip = u_proj * vec4(hit, 1.0);
    gl_FragDepth = 0.5 * (clip.z / clip.w) + 0.5;
    vec3 l = normalize(u_light_dir_view);
    float diffuse = max(dot(n, l), 0.0);
    float spec = pow(max(dot(reflect(-l, n), -dir), 0.0), 32.0);
    frag_color = vec4(v_color * (0.35 + 0.65 * diffuse) + vec3(0.15 * spec), 1.0);
}
"""

LINE_VS = """
#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_color;
uniform mat4 u_view;
uniform mat4 u_proj;
out vec3 v_color;
void main() {
    v_color = a_color;
    gl_Position = u_proj * u_view * vec4(a_pos, 1.0);
}
"""

LINE_FS = """
#version 330 core
in vec3 v_color;
out vec4 frag_color;
void main() { frag_color = vec4(v_color, 1.0); }
"""

SKY_VS = """
#version 330 core
const vec2 corners[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
out vec2 v_ndc;
void main() {
    v_ndc = corners[gl_VertexID];
    gl_Position = vec4(v_ndc, 1.0, 1.0);   // at the far plane: everything draws over it
}
"""

SKY_FS = """
#version 330 core
in vec2 v_ndc;
uniform mat4 u_inv_view_proj;
uniform vec3 u_horizon;
uniform vec3 u_zenith;
out vec4 frag_color;
void main() {
    vec4 far_point = u_inv_view_proj * vec4(v_ndc, 1.0, 1.0);
    vec4 near_point = u_inv_view_proj * vec4(v_ndc, -1.0, 1.0);
    vec3 dir = normalize(far_point.xyz / far_point.w - near_point.xyz / near_point.w);
    float up = clamp(dir.y, -1.0, 1.0);
    vec3 color = up > 0.0 ? mix(u_horizon, u_zenith, sqrt(up)) : u_horizon * (1.0 + 0.4 * up);
    frag_color = vec4(color, 1.0);
}
"""
