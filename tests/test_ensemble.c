/* Ensembles: creation limits, accessors, the chunked layout (also across
 * chunk boundaries with a partial last chunk), attributes, clone,
 * barycentric frame and the test-system generator. */
#include "sl_test.h"

Test(ensemble, create_limits)
{
    sl_ensemble *e = (sl_ensemble *)1;
    cr_assert_eq(sl_ensemble_create(0, 3, &e), SL_ERR_ARG);
    cr_assert_null(e);
    cr_assert(strstr(sl_last_error(), "at least 1 system"), "%s", sl_last_error());
    cr_assert_eq(sl_ensemble_create(5, 0, &e), SL_ERR_ARG);
    cr_assert_eq(sl_ensemble_create(5, SL_NBODY_MAX + 1, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "65 bodies"), "%s", sl_last_error());
    SLT_OK(sl_ensemble_create(1, SL_NBODY_MAX, &e));
    sl_ensemble_destroy(e);
    SLT_OK(sl_ensemble_create(70, 5, &e));
    cr_assert_eq(e->n_sys, 70);
    cr_assert_eq(e->n_body, 5);
    cr_assert_eq(e->n_chunks, 3);
    for (int s = 0; s < 70; s++) {
        cr_assert_eq(e->status[s], SL_SYS_ACTIVE);
        cr_assert_eq(e->reason[s], SL_REASON_NONE);
        cr_assert_eq(e->time[s], 0.0);
        cr_assert_eq(e->steps[s], 0);
        cr_assert(isnan(e->stop_time[s]));
    }
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(NULL);
}

/* sl_state_index maps (system, body, field) one-to-one onto the state
 * array, neighbouring systems of a chunk are neighbouring addresses, and
 * the partial last chunk stays inside the allocation. */
Test(ensemble, chunked_layout_is_a_bijection)
{
    const int64_t ns = 70;
    const int nb = 5;
    size_t len = sl_state_len(ns, nb);
    cr_assert_eq(len, (size_t)3 * nb * SL_NFIELD * SL_CHUNK);
    unsigned char *hit = calloc(len, 1);
    for (int64_t s = 0; s < ns; s++)
        for (int b = 0; b < nb; b++)
            for (int f = 0; f < SL_NFIELD; f++) {
                size_t i = sl_state_index(s, nb, b, f);
                cr_assert(i < len);
                cr_assert_eq(hit[i], 0, "(%lld, %d, %d) collides", (long long)s, b, f);
                hit[i] = 1;
                if (s % SL_CHUNK != SL_CHUNK - 1 && s + 1 < ns)
                    cr_assert_eq(sl_state_index(s + 1, nb, b, f), i + 1, "not coalesced");
                cr_assert_eq(sl_state_at(s, nb, b, f), i, "host and kernel layouts differ");
            }
    free(hit);
}

Test(ensemble, body_round_trip_across_chunks)
{
    const int64_t ns = 70;
    const int nb = 5;
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(ns, nb, &e));
    for (int64_t s = 0; s < ns; s++)
        for (int b = 0; b < nb; b++) {
            double base = 1000.0 * (double)s + 10.0 * b;
            double x[3] = {base + 1, base + 2, -(base + 3)};
            double v[3] = {base + 4, -(base + 5), base + 6};
            SLT_OK(sl_ensemble_set_body(e, s, b, base + 7, x, v));
        }
    for (int64_t s = 0; s < ns; s++)
        for (int b = 0; b < nb; b++) {
            double base = 1000.0 * (double)s + 10.0 * b, m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            cr_assert_eq(x[0], base + 1);
            cr_assert_eq(x[1], base + 2);
            cr_assert_eq(x[2], -(base + 3));
            cr_assert_eq(v[0], base + 4);
            cr_assert_eq(v[1], -(base + 5));
            cr_assert_eq(v[2], base + 6);
            cr_assert_eq(m, base + 7, "system %lld body %d", (long long)s, b);
            cr_assert_eq(sl_ensemble_get(e, s, b, SL_M), base + 7);
            cr_assert_eq(sl_ensemble_get(e, s, b, SL_VY), -(base + 5));
            /* NULL outputs are allowed */
            sl_ensemble_get_body(e, s, b, NULL, NULL, v);
            cr_assert_eq(v[2], base + 6);
        }
    /* the padding of the last chunk is untouched */
    for (int64_t s = ns; s < e->n_chunks * SL_CHUNK; s++)
        for (int b = 0; b < nb; b++)
            for (int f = 0; f < SL_NFIELD; f++)
                cr_assert_eq(e->state[sl_state_index(s, nb, b, f)], 0.0);
    sl_ensemble_destroy(e);
}

Test(ensemble, set_body_validates)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(3, 2, &e));
    double x[3] = {1, 2, 3}, v[3] = {0, 0, 0}, bad[3] = {0, NAN, 0}, inf[3] = {INFINITY, 0, 0};
    cr_assert_eq(sl_ensemble_set_body(e, 3, 0, 1, x, v), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "system 3 body 0"), "%s", sl_last_error());
    cr_assert_eq(sl_ensemble_set_body(e, -1, 0, 1, x, v), SL_ERR_ARG);
    cr_assert_eq(sl_ensemble_set_body(e, 0, 2, 1, x, v), SL_ERR_ARG);
    cr_assert_eq(sl_ensemble_set_body(e, 0, 0, -1, x, v), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "mass -1"), "%s", sl_last_error());
    cr_assert_eq(sl_ensemble_set_body(e, 0, 0, NAN, x, v), SL_ERR_ARG);
    cr_assert_eq(sl_ensemble_set_body(e, 0, 0, 1, bad, v), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "non-finite"), "%s", sl_last_error());
    cr_assert_eq(sl_ensemble_set_body(e, 0, 0, 1, x, inf), SL_ERR_ARG);
    for (int f = 0; f < SL_NFIELD; f++)
        cr_assert_eq(sl_ensemble_get(e, 0, 0, f), 0.0, "a refused body changed the state");
    SLT_OK(sl_ensemble_set_body(e, 0, 0, 0.0, x, v)); /* massless is fine */
    sl_ensemble_destroy(e);
}

Test(ensemble, attributes)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(40, 2, &e));
    int a, b, a2;
    SLT_OK(sl_ensemble_attr(e, "a_ratio", &a));
    cr_assert_eq(a, 0);
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(e->attr[a * 40 + s], 0.0);
        e->attr[a * 40 + s] = s + 0.5;
    }
    SLT_OK(sl_ensemble_attr(e, "seed", &b));
    cr_assert_eq(b, 1);
    SLT_OK(sl_ensemble_attr(e, "a_ratio", &a2));
    cr_assert_eq(a2, 0, "an existing name is found, not added");
    cr_assert_eq(e->n_attr, 2);
    cr_assert_str_eq(e->attr_name[1], "seed");
    for (int s = 0; s < 40; s++) {
        cr_assert_eq(e->attr[a * 40 + s], s + 0.5, "adding a column moved the old one");
        cr_assert_eq(e->attr[b * 40 + s], 0.0);
    }
    sl_ensemble_destroy(e);
}

Test(ensemble, clone_is_deep)
{
    sl_test_system_spec sp = {.n_planets = 3, .planet_mass = 1e-3, .a1 = 1, .spacing = 0.5,
                              .perturb = 0.02, .random_phase = 1, .seed = 3};
    sl_ensemble *e, *c;
    SLT_OK(sl_ensemble_test_systems(&sp, 45, &e));
    int ai;
    SLT_OK(sl_ensemble_attr(e, "tag", &ai));
    for (int s = 0; s < 45; s++) {
        e->attr[s] = -s;
        e->time[s] = 0.5 * s;
        e->steps[s] = 3 * s;
        e->status[s] = s % 3;
        e->reason[s] = s % 7;
        e->detail[s] = s - 1;
        e->stop_time[s] = s % 3 ? 1.0 * s : NAN;
    }
    SLT_OK(sl_ensemble_clone(e, &c));
    slt_assert_same_ensemble(e, c, "clone");
    cr_assert_eq(c->n_attr, 1);
    cr_assert_str_eq(c->attr_name[0], "tag");
    cr_assert_neq(c->attr_name[0], e->attr_name[0]);
    for (int s = 0; s < 45; s++)
        cr_assert_eq(c->attr[s], -s);
    /* independent storage */
    cr_assert_neq(c->state, e->state);
    double x[3] = {9, 9, 9};
    SLT_OK(sl_ensemble_set_body(c, 44, 1, 2.0, x, x));
    c->attr[0] = 77;
    c->time[0] = 99;
    cr_assert_neq(sl_ensemble_get(e, 44, 1, SL_X), 9.0);
    cr_assert_eq(e->attr[0], 0.0);
    cr_assert_eq(e->time[0], 0.0);
    sl_ensemble_destroy(c);
    sl_ensemble_destroy(e);
}

Test(ensemble, barycentric)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(33, 4, &e));
    for (int s = 0; s < 33; s++)
        for (int b = 0; b < 4; b++) {
            double x[3] = {s + b, 2.0 * b - s, 0.1 * b}, v[3] = {0.3 * s, -b, 1.0 + s * b};
            SLT_OK(sl_ensemble_set_body(e, s, b, b == 0 ? 1.0 : 1e-3 * b, x, v));
        }
    sl_ensemble *orig;
    SLT_OK(sl_ensemble_clone(e, &orig));
    sl_ensemble_to_barycentric(e);
    for (int s = 0; s < 33; s++) {
        double cm[6] = {0}, mt = 0, scale = 0;
        for (int b = 0; b < 4; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            mt += m;
            for (int k = 0; k < 3; k++) {
                cm[k] += m * x[k];
                cm[3 + k] += m * v[k];
                scale = fmax(scale, fabs(x[k]) + fabs(v[k]));
            }
            /* relative positions and velocities are unchanged */
            if (b > 0) {
                double x0[3], v0[3], ox[3], ov[3], ox0[3], ov0[3];
                sl_ensemble_get_body(e, s, 0, NULL, x0, v0);
                sl_ensemble_get_body(orig, s, b, NULL, ox, ov);
                sl_ensemble_get_body(orig, s, 0, NULL, ox0, ov0);
                for (int k = 0; k < 3; k++) {
                    cr_assert(fabs((x[k] - x0[k]) - (ox[k] - ox0[k])) < 1e-13 * (1 + scale));
                    cr_assert(fabs((v[k] - v0[k]) - (ov[k] - ov0[k])) < 1e-13 * (1 + scale));
                }
            }
        }
        for (int k = 0; k < 6; k++)
            cr_assert(fabs(cm[k] / mt) < 1e-14 * (1 + scale), "system %d: centre of mass %g", s,
                      cm[k] / mt);
    }
    sl_ensemble_destroy(orig);
    sl_ensemble_destroy(e);
}

Test(ensemble, test_systems_geometry)
{
    sl_test_system_spec sp = {.n_planets = 4, .planet_mass = 1e-4, .a1 = 0.5, .spacing = 0.5,
                              .perturb = 0.0, .random_phase = 0, .seed = 1};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, 37, &e));
    cr_assert_eq(e->n_body, 5);
    for (int s = 0; s < 37; s++) {
        double m0, x0[3], v0[3];
        sl_ensemble_get_body(e, s, 0, &m0, x0, v0);
        cr_assert_eq(m0, 1.0);
        for (int k = 1; k <= 4; k++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, k, &m, x, v);
            cr_assert_eq(m, 1e-4);
            double r = x[0] - x0[0], want = 0.5 * pow(1.5, k - 1);
            /* random_phase = 0: on the +x axis, circular, counter-clockwise */
            cr_assert(fabs(r - want) < 1e-12, "planet %d at %.15g, expected %.15g", k, r, want);
            cr_assert(fabs(x[1] - x0[1]) < 1e-15 && fabs(x[2] - x0[2]) < 1e-15);
            cr_assert(fabs((v[1] - v0[1]) - sqrt((1 + 1e-4) / want)) < 1e-12);
        }
    }
    sl_ensemble_destroy(e);
    /* per-system spacing */
    double spacing[3] = {0.2, 0.4, 0.8};
    sp.spacing_per_sys = spacing;
    SLT_OK(sl_ensemble_test_systems(&sp, 3, &e));
    for (int s = 0; s < 3; s++) {
        double x0[3], x2[3];
        sl_ensemble_get_body(e, s, 0, NULL, x0, NULL);
        sl_ensemble_get_body(e, s, 2, NULL, x2, NULL);
        cr_assert(fabs((x2[0] - x0[0]) - 0.5 * (1 + spacing[s])) < 1e-12);
    }
    sl_ensemble_destroy(e);
}

Test(ensemble, test_systems_validate)
{
    sl_test_system_spec ok = {.n_planets = 2, .planet_mass = 1e-3, .a1 = 1, .spacing = 0.5,
                              .perturb = 0.01, .random_phase = 1, .seed = 1};
    sl_ensemble *e;
    sl_test_system_spec sp = ok;
    sp.n_planets = 0;
    cr_assert_eq(sl_ensemble_test_systems(&sp, 4, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "planets = 0"), "%s", sl_last_error());
    sp = ok, sp.planet_mass = -1;
    cr_assert_eq(sl_ensemble_test_systems(&sp, 4, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "planet_mass"), "%s", sl_last_error());
    sp = ok, sp.a1 = 0;
    cr_assert_eq(sl_ensemble_test_systems(&sp, 4, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "a1"), "%s", sl_last_error());
    sp = ok, sp.perturb = 1.0;
    cr_assert_eq(sl_ensemble_test_systems(&sp, 4, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "perturb"), "%s", sl_last_error());
    sp = ok, sp.spacing = -1.0;
    cr_assert_eq(sl_ensemble_test_systems(&sp, 4, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "spacing"), "%s", sl_last_error());
    double bad[4] = {0.5, 0.5, NAN, 0.5};
    sp = ok, sp.spacing_per_sys = bad;
    cr_assert_eq(sl_ensemble_test_systems(&sp, 4, &e), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "system 3"), "%s", sl_last_error());
    cr_assert_null(e);
}

Test(ensemble, labels)
{
    cr_assert_str_eq(sl_status_label(SL_SYS_ACTIVE), "active");
    cr_assert_str_eq(sl_status_label(SL_SYS_STOPPED), "stopped");
    cr_assert_str_eq(sl_status_label(SL_SYS_FAILED), "failed");
    cr_assert_str_eq(sl_status_label(17), "unknown");
    const char *r[] = {"none", "ejection", "unbound", "close_encounter", "nonfinite", "step_cap",
                       "energy"};
    for (int i = 0; i <= SL_REASON_ENERGY; i++)
        cr_assert_str_eq(sl_reason_label(i), r[i]);
    cr_assert_str_eq(sl_reason_label(-1), "unknown");
    cr_assert_str_eq(sl_status_name(SL_ERR_PLUGIN), "plugin error");
    cr_assert_str_eq(sl_status_name(SL_OK), "ok");
}

Test(ensemble, error_context)
{
    cr_assert_eq(sl_fail(SL_ERR_IO, "file %s missing", "a.csv"), SL_ERR_IO);
    cr_assert_str_eq(sl_last_error(), "file a.csv missing");
    cr_assert_eq(sl_fail_context(SL_ERR_IO, "while reading %d", 3), SL_ERR_IO);
    cr_assert_str_eq(sl_last_error(), "while reading 3: file a.csv missing");
    sl_clear_error();
    cr_assert_str_eq(sl_last_error(), "");
}

/* ---- out of memory: the message keeps the cause and the size ------------- */

Test(nomem, byte_sizes)
{
    char b[32];
    sl_fmt_bytes(b, sizeof b, 0);
    cr_expect_str_eq(b, "0 bytes");
    sl_fmt_bytes(b, sizeof b, 1);
    cr_expect_str_eq(b, "1 byte");
    sl_fmt_bytes(b, sizeof b, 1023);
    cr_expect_str_eq(b, "1023 bytes");
    sl_fmt_bytes(b, sizeof b, 1024);
    cr_expect_str_eq(b, "1.00 KiB");
    sl_fmt_bytes(b, sizeof b, 80e9);
    cr_expect_str_eq(b, "74.5 GiB");
    sl_fmt_bytes(b, sizeof b, 300.0 * 1024 * 1024);
    cr_expect_str_eq(b, "300 MiB");
    sl_fmt_bytes(b, sizeof b, 1e30);
    cr_expect(strstr(b, "EiB"), "%s", b);
}

Test(nomem, gpu_message_names_free_memory)
{
    cr_assert_eq(sl_fail_nomem_gpu(80e9, 85e9, "ensemble state of %d systems", 7), SL_ERR_NOMEM);
    cr_expect_str_eq(sl_last_error(), "ensemble state of 7 systems: out of memory on the GPU "
                                      "(needs 74.5 GiB, the device has 79.2 GiB free)");
    sl_fail_nomem_gpu(2048, -1, "x");
    cr_expect_str_eq(sl_last_error(), "x: out of memory on the GPU (needs 2.00 KiB)");
}

/* An ensemble far beyond any machine fails before allocating, saying what
 * and how much; it used to say only "ensemble of N systems x 3 bodies". */
Test(nomem, huge_ensemble_says_out_of_memory_and_how_much)
{
    sl_ensemble *e = (sl_ensemble *)1;
    cr_assert_eq(sl_ensemble_create(1000000000000LL, 3, &e), SL_ERR_NOMEM, "%s",
                 sl_last_error());
    cr_assert_null(e);
    const char *msg = sl_last_error();
    cr_expect(strstr(msg, "ensemble of 1000000000000 systems x 3 bodies: out of memory (needs "
                          "186 TiB of host memory; this machine has "), "%s", msg);
    /* so big that size_t arithmetic would wrap: still a clean refusal */
    cr_assert_eq(sl_ensemble_create(INT64_MAX / 2, SL_NBODY_MAX, &e), SL_ERR_NOMEM);
    cr_expect(strstr(sl_last_error(), "out of memory (needs "), "%s", sl_last_error());
}
