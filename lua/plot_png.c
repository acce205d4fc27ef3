/* starling.plot_png{...}: a line plot (a periodogram) written as a PNG
 * through libpng, with axes, ticks, tick labels, a title and an optional
 * marker line. Small on purpose: enough to look at a periodogram without
 * leaving starling, not a plotting library.
 *
 *   starling.plot_png{ path = "p.png", x = {...}, y = {...} |
 *                      object = r[1] (a periodogram's result with full = true),
 *                      title =, xlabel =, ylabel =, width = 900, height = 500,
 *                      mark = x (a dashed vertical line, e.g. the best frequency) }
 *
 * Dense data (more points than pixel columns) come out right because every
 * segment between neighbouring points is drawn: each column shows the full
 * range of the values that fall in it. */
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binding_util.h"
#include "plot_ticks.h"
#include "csv.h"

typedef struct canvas {
    int w, h;
    uint8_t *px; /* w * h * 3, RGB */
} canvas;

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static void put(canvas *c, int x, int y, rgb k)
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h)
        return;
    uint8_t *p = c->px + 3 * ((size_t)y * (size_t)c->w + (size_t)x);
    p[0] = k.r, p[1] = k.g, p[2] = k.b;
}

/* Bresenham: integer steps, no gaps whatever the slope. */
static void line(canvas *c, int x0, int y0, int x1, int y1, rgb k)
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        put(c, x0, y0, k);
        if (x0 == x1 && y0 == y1)
            return;
        int e2 = 2 * err;
        if (e2 >= dy)
            err += dy, x0 += sx;
        if (e2 <= dx)
            err += dx, y0 += sy;
    }
}

/* ---- a 5x7 font: rows top to bottom, bit 4 the leftmost pixel ---- */

typedef struct glyph {
    char ch;
    uint8_t row[7];
} glyph;

static const glyph font[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0, 0, 0, 0, 0, 0x0C, 0x0C}}, {'-', {0, 0, 0, 0x1F, 0, 0, 0}},
    {'+', {0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0}}, {'/', {0, 0x01, 0x02, 0x04, 0x08, 0x10, 0}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}}, {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
    {'[', {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E}}, {']', {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E}},
    {':', {0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0}}, {'=', {0, 0, 0x1F, 0, 0x1F, 0, 0}},
    {',', {0, 0, 0, 0, 0x0C, 0x04, 0x08}}, {'_', {0, 0, 0, 0, 0, 0, 0x1F}},
    {'a', {0, 0, 0x0E, 0x01, 0x0F, 0x11, 0x0F}}, {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}},
    {'c', {0, 0, 0x0E, 0x10, 0x10, 0x11, 0x0E}}, {'d', {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}},
    {'e', {0, 0, 0x0E, 0x11, 0x1F, 0x10, 0x0E}}, {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}},
    {'g', {0, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E}}, {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'i', {0x04, 0, 0x0C, 0x04, 0x04, 0x04, 0x0E}}, {'j', {0x02, 0, 0x06, 0x02, 0x02, 0x12, 0x0C}},
    {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}}, {'l', {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'m', {0, 0, 0x1A, 0x15, 0x15, 0x11, 0x11}}, {'n', {0, 0, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'o', {0, 0, 0x0E, 0x11, 0x11, 0x11, 0x0E}}, {'p', {0, 0, 0x1E, 0x11, 0x1E, 0x10, 0x10}},
    {'q', {0, 0, 0x0D, 0x13, 0x0F, 0x01, 0x01}}, {'r', {0, 0, 0x16, 0x19, 0x10, 0x10, 0x10}},
    {'s', {0, 0, 0x0E, 0x10, 0x0E, 0x01, 0x1E}}, {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
    {'u', {0, 0, 0x11, 0x11, 0x11, 0x13, 0x0D}}, {'v', {0, 0, 0x11, 0x11, 0x11, 0x0A, 0x04}},
    {'w', {0, 0, 0x11, 0x11, 0x15, 0x15, 0x0A}}, {'x', {0, 0, 0x11, 0x0A, 0x04, 0x0A, 0x11}},
    {'y', {0, 0, 0x11, 0x11, 0x0F, 0x01, 0x0E}}, {'z', {0, 0, 0x1F, 0x02, 0x04, 0x08, 0x1F}},
};

enum { SCALE = 2, CW = 6 * SCALE, CH = 7 * SCALE }; /* character cell incl. spacing */

/* Text with its top-left corner at (x, y); capitals drawn as small letters
 * (one case keeps the font small), unknown characters as blanks. */
static void text(canvas *c, int x, int y, const char *s, rgb k)
{
    for (; *s; s++, x += CW) {
        char ch = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
        for (size_t g = 0; g < sizeof font / sizeof font[0]; g++) {
            if (font[g].ch != ch)
                continue;
            for (int r = 0; r < 7; r++)
                for (int b = 0; b < 5; b++)
                    if (font[g].row[r] & (0x10 >> b))
                        for (int u = 0; u < SCALE; u++)
                            for (int v = 0; v < SCALE; v++)
                                put(c, x + SCALE * b + u, y + SCALE * r + v, k);
            break;
        }
    }
}

static const double *field_list(lua_State *L, int t, const char *k, int64_t *n)
{
    lua_getfield(L, t, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (!lua_istable(L, -1))
        sl_lua_error(L, "plot_png: key '%s': expected a list of numbers", k);
    *n = (int64_t)lua_rawlen(L, -1);
    double *v = lua_newuserdatauv(L, (size_t)(*n ? *n : 1) * sizeof *v, 0);
    for (int64_t i = 0; i < *n; i++) {
        lua_rawgeti(L, -2, (lua_Integer)i + 1);
        if (!lua_isnumber(L, -1))
            sl_lua_error(L, "plot_png: %s[%lld]: expected a number", k, (long long)i + 1);
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_remove(L, -2);
    return v;
}

static const char *opt_str(lua_State *L, int t, const char *k, const char *dflt)
{
    lua_getfield(L, t, k);
    const char *s = lua_isnil(L, -1) ? dflt : sl_lua_check_str(L, -1, "plot_png", k);
    lua_pop(L, 1); /* the string stays alive in the table */
    return s;
}

static double opt_num(lua_State *L, int t, const char *k, double dflt)
{
    lua_getfield(L, t, k);
    int isnum = lua_isnumber(L, -1);
    double v = isnum ? lua_tonumber(L, -1) : dflt;
    if (!isnum && !lua_isnil(L, -1))
        sl_lua_error(L, "plot_png: key '%s': expected a number", k);
    lua_pop(L, 1);
    return v;
}

/* libpng reports through this (instead of printing to stderr); it must not
 * return. */
static void png_fail(png_structp png, png_const_charp msg)
{
    snprintf(png_get_error_ptr(png), 256, "%s", msg);
    png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

/* Written whole or not at all (starling/output.h); the messages say why not. */
static sl_status write_png(const char *path, unsigned flags, const canvas *c)
{
    sl_out af;
    sl_status st = sl_out_open(&af, path, flags);
    if (st)
        return st;
    char why[256] = "libpng could not start";
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, why, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        sl_out_abort(&af);
        return sl_fail(SL_ERR_IO, "'%s': libpng: %s", path, why);
    }
    png_init_io(png, af.f);
    png_set_IHDR(png, info, (png_uint_32)c->w, (png_uint_32)c->h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < c->h; y++)
        png_write_row(png, c->px + (size_t)y * (size_t)c->w * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return sl_out_commit(&af);
}

static const char *const plot_keys[] = {"path", "x", "y", "object", "title", "xlabel", "ylabel",
                                        "width", "height", "mark", "overwrite", NULL};

int sl_lua_plot_png(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        int ok = lua_type(L, -1) == LUA_TSTRING;
        for (const char *const *k = plot_keys; ok && *k; k++)
            if (!strcmp(*k, lua_tostring(L, -1)))
                ok = 2;
        if (ok != 2)
            sl_lua_error(L, "plot_png: unknown key '%s'; known keys: path, x, y, object, title, "
                         "xlabel, ylabel, width, height, mark, overwrite",
                         lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?");
    }
    lua_getfield(L, 1, "path");
    const char *path = sl_lua_check_str(L, -1, "plot_png", "path");
    lua_pop(L, 1);
    unsigned flags = sl_lua_out_flags(L, 1, "plot_png");
    sl_lua_out_check(L, path, flags, "plot_png");
    int64_t nx = 0, ny = 0;
    const double *x = NULL, *y = NULL;
    double *xs = NULL;
    lua_getfield(L, 1, "object");
    if (!lua_isnil(L, -1)) {
        int o = lua_gettop(L);
        y = field_list(L, o, "power", &ny);
        if (!y)
            sl_lua_error(L, "plot_png: object has no 'power' (compute the periodogram with "
                            "full = true)");
        double f0 = opt_num(L, o, "f0", NAN), df = opt_num(L, o, "df", NAN);
        xs = lua_newuserdatauv(L, (size_t)(ny ? ny : 1) * sizeof *xs, 0);
        for (int64_t i = 0; i < ny; i++)
            xs[i] = f0 + (double)i * df;
        x = xs, nx = ny;
    } else {
        x = field_list(L, 1, "x", &nx);
        y = field_list(L, 1, "y", &ny);
        if (!x || !y || nx != ny)
            sl_lua_error(L, "plot_png: give object = <a periodogram's result>, or x and y lists of "
                         "equal length");
    }
    if (ny < 2)
        sl_lua_error(L, "plot_png: %lld points: expected at least 2", (long long)ny);
    int w = (int)opt_num(L, 1, "width", 900), h = (int)opt_num(L, 1, "height", 500);
    if (w < 200 || h < 150 || w > 10000 || h > 10000)
        sl_lua_error(L, "plot_png: width = %d, height = %d: expected 200..10000 x 150..10000", w, h);
    const char *title = opt_str(L, 1, "title", ""), *xl = opt_str(L, 1, "xlabel", "frequency");
    const char *yl = opt_str(L, 1, "ylabel", "power");
    double mark = opt_num(L, 1, "mark", NAN);

    double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
    for (int64_t i = 0; i < ny; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            x0 = fmin(x0, x[i]), x1 = fmax(x1, x[i]);
            y0 = fmin(y0, y[i]), y1 = fmax(y1, y[i]);
        }
    if (!(x1 > x0) || !(y1 > y0))
        sl_lua_error(L, "plot_png: no finite range to plot (x %g..%g, y %g..%g)", x0, x1, y0, y1);
    y1 += 0.05 * (y1 - y0);

    canvas c = {w, h, lua_newuserdatauv(L, (size_t)w * (size_t)h * 3, 0)};
    memset(c.px, 255, (size_t)w * (size_t)h * 3);
    const rgb black = {0, 0, 0}, grey = {200, 200, 200}, blue = {20, 60, 200}, red = {210, 30, 30};
    const int L0 = 14 + 8 * CW, R0 = w - 20, T0 = 20 + 2 * CH, B0 = h - 20 - 2 * CH;
#define PX(v) (L0 + (int)lround(((v) - x0) / (x1 - x0) * (R0 - L0)))
#define PY(v) (B0 - (int)lround(((v) - y0) / (y1 - y0) * (B0 - T0)))
    char lab[64];
    double sx = sl_plot_tick_step(x0, x1, 8), sy = sl_plot_tick_step(y0, y1, 6);
    for (double v = ceil(x0 / sx) * sx; v <= x1 + 1e-9 * sx; v += sx) {
        int px = PX(v);
        line(&c, px, T0, px, B0, grey);
        line(&c, px, B0, px, B0 + 5, black);
        snprintf(lab, sizeof lab, "%g", fabs(v) < 1e-12 * sx ? 0.0 : v);
        text(&c, px - (int)strlen(lab) * CW / 2, B0 + 8, lab, black);
    }
    for (double v = ceil(y0 / sy) * sy; v <= y1 + 1e-9 * sy; v += sy) {
        int py = PY(v);
        line(&c, L0, py, R0, py, grey);
        line(&c, L0 - 5, py, L0, py, black);
        snprintf(lab, sizeof lab, "%g", fabs(v) < 1e-12 * sy ? 0.0 : v);
        text(&c, L0 - 8 - (int)strlen(lab) * CW, py - CH / 2, lab, black);
    }
    line(&c, L0, B0, R0, B0, black);
    line(&c, L0, T0, L0, B0, black);
    line(&c, R0, T0, R0, B0, black);
    line(&c, L0, T0, R0, T0, black);
    if (isfinite(mark) && mark >= x0 && mark <= x1)
        for (int py = T0; py < B0; py += 8)
            line(&c, PX(mark), py, PX(mark), py + 3, red);
    int have = 0, qx = 0, qy = 0;
    for (int64_t i = 0; i < ny; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            have = 0;
            continue;
        }
        int px = PX(x[i]), py = PY(y[i]);
        if (have)
            line(&c, qx, qy, px, py, blue);
        else
            put(&c, px, py, blue);
        qx = px, qy = py, have = 1;
    }
#undef PX
#undef PY
    text(&c, (L0 + R0) / 2 - (int)strlen(xl) * CW / 2, h - 6 - CH, xl, black);
    text(&c, 8, T0 - CH - 6, yl, black);
    text(&c, (L0 + R0) / 2 - (int)strlen(title) * CW / 2, 6, title, black);
    sl_lua_check(L, write_png(path, flags, &c), "plot_png");
    (void)xs;
    return 0;
}
