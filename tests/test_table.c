/* The tabular-text reader (starling/table.h): header detection by content,
 * columns chosen by name, errors that name file, line and column, and a
 * round trip of every dialect it accepts. */
#include "sl_test.h"

#include <math.h>
#include "starling/table.h"

static const char *const t_al[] = {"time", "t", "mjd", NULL};
static const char *const y_al[] = {"flux", "pdcsap_flux", "sap_flux", "mag", "vel", "y", NULL};
static const char *const e_al[] = {"flux_err", "errvel", "err", "dy", NULL};
static const char *const id_al[] = {"id", "tel", NULL};

/* time, value, [error], [id]: by position 0, 1, 2, 3 without a header */
static const sl_table_col cols[4] = {
    {"time", t_al, SL_COL_NUMBER, 1, 0, 1},
    {"value", y_al, SL_COL_NUMBER, 1, 1, 0},
    {"error", e_al, SL_COL_NUMBER, 0, 2, 0},
    {"id", id_al, SL_COL_TEXT, 0, 3, 0},
};

static sl_table_spec spec4(void)
{
    return (sl_table_spec){.what = "test rows", .cols = cols, .n_cols = 4, .can_name = 1};
}

/* Reads text as a file named "in.txt" through a memory stream. */
static sl_status read_text(const char *text, const sl_table_spec *spec, sl_table *t)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    cr_assert_not_null(f);
    sl_status st = sl_table_read_stream(f, "in.txt", spec, t);
    fclose(f);
    return st;
}

static void expect_error(const char *text, const char *want)
{
    sl_table_spec spec = spec4();
    sl_table t;
    sl_clear_error();
    cr_assert_neq(read_text(text, &spec, &t), SL_OK, "accepted:\n%s", text);
    cr_assert(strstr(sl_last_error(), want), "message \"%s\" lacks \"%s\"", sl_last_error(),
              want);
    cr_assert_eq(t.n_rows, 0, "a failed read left rows behind");
}

/* Defect: a header-less file with a text column lost its first row. */
Test(table, headerless_file_with_a_text_column_keeps_its_first_row)
{
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text("1.5 10 0.1 good\n2.5 11 0.2 bad\n3.5 12 0.3 good\n", &spec, &t));
    cr_assert_eq(t.has_header, 0);
    cr_assert_eq(t.n_rows, 3);
    cr_assert_eq(t.col[0].num[0], 1.5);
    cr_assert_eq(t.line[0], 1);
    cr_assert_eq(t.col[3].n_levels, 2);
    cr_assert_str_eq(t.col[3].levels[t.col[3].code[1]], "bad");
    sl_table_free(&t);
}

/* Defect: columns were taken by position even when a header named them. */
Test(table, header_names_choose_columns_in_any_order)
{
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text("time,errvel,vel\n1,0.5,7\n2,0.25,8\n", &spec, &t));
    cr_assert_eq(t.has_header, 1);
    cr_assert_eq(t.col[1].src, 3);
    cr_assert_eq(t.col[1].num[0], 7.0);
    cr_assert_eq(t.col[2].num[1], 0.25);
    cr_assert_eq(t.col[3].present, 0);
    cr_assert_eq(t.line[0], 2);
    sl_table_free(&t);
}

Test(table, pandas_index_column_is_ignored)
{
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text(",errvel,t,vel\n0,1.5,2364.8,6.9\n1,1.6,2364.9,5.0\n", &spec, &t));
    cr_assert_eq(t.n_rows, 2);
    cr_assert_eq(t.col[0].num[0], 2364.8);
    cr_assert_eq(t.col[1].num[1], 5.0);
    cr_assert_eq(t.col[2].num[0], 1.5);
    sl_table_free(&t);
}

Test(table, alias_order_is_priority_not_file_order)
{
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text("TIME SAP_FLUX PDCSAP_FLUX\n1 100 200\n2 101 201\n", &spec, &t));
    cr_assert_eq(t.col[1].num[0], 200.0, "took %s", t.col[1].header);
    cr_assert_str_eq(t.col[1].header, "PDCSAP_FLUX");
    sl_table_free(&t);
}

Test(table, commented_header_is_used_when_it_names_a_column)
{
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text("# made by a pipeline\n# time err flux\n1 0.1 5\n2 0.2 6\n", &spec, &t));
    cr_assert_eq(t.has_header, 1);
    cr_assert_eq(t.header_line, 2);
    cr_assert_eq(t.col[1].num[0], 5.0);
    cr_assert_eq(t.col[2].num[0], 0.1);
    cr_assert_eq(t.n_comments, 2);
    sl_table_free(&t);
    /* a comment of as many words that names no column is just a comment */
    SLT_OK(read_text("# reduced by me\n1 0.1 5\n", &spec, &t));
    cr_assert_eq(t.has_header, 0);
    cr_assert_eq(t.col[1].num[0], 0.1);
    sl_table_free(&t);
}

Test(table, crlf_bom_quotes_semicolons_and_trailing_comments)
{
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text("\xEF\xBB\xBFtime,flux,id\r\n1,2,\"HD 1, b\" # first\r\n3,4,\"say \"\"x\"\"\"\r\n",
                     &spec, &t));
    cr_assert_eq(t.n_rows, 2);
    cr_assert_str_eq(t.col[3].levels[0], "HD 1, b");
    cr_assert_str_eq(t.col[3].levels[1], "say \"x\"");
    cr_assert_eq(t.col[1].num[1], 4.0);
    sl_table_free(&t);
    /* a decimal comma is refused, never read as two fields or as 1 */
    expect_error("t;flux\n1,5;2\n", "in.txt:2: column 1 (t) = \"1,5\": expected a finite");
    SLT_OK(read_text("t;flux\n1;2\n", &spec, &t));
    cr_assert_eq(t.col[1].num[0], 2.0);
    sl_table_free(&t);
}

Test(table, numbers_are_decimal_nan_or_inf)
{
    double v;
    cr_assert(sl_table_parse_number("1.0D+03", &v) && v == 1000.0);
    cr_assert(sl_table_parse_number("-.5e-1", &v) && v == -0.05);
    cr_assert(sl_table_parse_number("NaN", &v) && isnan(v));
    cr_assert(sl_table_parse_number("-inf", &v) && isinf(v) && v < 0);
    cr_assert(sl_table_parse_number("1e-400", &v) && v == 0.0); /* underflow is a value */
    const char *bad[] = {"", "0x10", "1e999", "1.2.3", "e5", "1e", "nan(1)", "12abc", " 1", "."};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert(!sl_table_parse_number(bad[i], &v), "took \"%s\" as %g", bad[i], v);
}

Test(table, errors_name_file_line_and_column)
{
    expect_error("1 2 3\n4 x 6\n", "in.txt:2: column 2 (value) = \"x\": expected a number");
    expect_error("time flux\n1 2\nnan 3\n", "in.txt:3: column 1 (time) = \"nan\": expected a "
                                             "finite number");
    expect_error("1 2 3\n4 5\n", "in.txt:2: 2 fields, but the first data line (line 1) has 3");
    expect_error("t flux\n1 2 3\n", "in.txt:2: 3 fields, but the header (line 1) has 2");
    expect_error("1\n2\n", "in.txt:1: 1 field: expected at least 2 (time, value[, error][, id])");
    expect_error("mjd magnitude\n1 2\n", "in.txt:1: the header (\"mjd\", \"magnitude\") names no "
                                         "value column: expected one of value, flux, pdcsap_flux");
    expect_error("# only\n\n", "in.txt: no data lines (expected test rows: time, value");
    expect_error("t,flux,id\n1,2,\"open\n", "in.txt:2: a quoted field");
    expect_error("1e999 2\n", "in.txt:1: column 1 (time) = \"1e999\": expected a finite number");
}

Test(table, user_names_override_the_aliases)
{
    const char *names[4] = {"JD", "RV", "e_RV", NULL};
    sl_table_spec spec = spec4();
    spec.names = names;
    sl_table t;
    SLT_OK(read_text("JD flux RV e_RV\n1 9 2 0.5\n", &spec, &t));
    cr_assert_eq(t.col[1].num[0], 2.0);
    cr_assert_eq(t.col[2].num[0], 0.5);
    sl_table_free(&t);
    sl_clear_error();
    cr_assert_neq(read_text("JD flux RV\n1 9 2\n", &spec, &t), SL_OK);
    cr_assert(strstr(sl_last_error(), "columns.error = \"e_RV\": the header has no such column"),
              "%s", sl_last_error());
    cr_assert_neq(read_text("1 9 2\n", &spec, &t), SL_OK);
    cr_assert(strstr(sl_last_error(), "the file has no header line"), "%s", sl_last_error());
}

Test(table, header_required_refuses_bare_data)
{
    sl_table_spec spec = spec4();
    spec.header_required = 1;
    sl_table t;
    cr_assert_neq(read_text("1 2 3\n", &spec, &t), SL_OK);
    cr_assert(strstr(sl_last_error(), "in.txt:1: expected a header line naming the columns"),
              "%s", sl_last_error());
}

Test(table, many_distinct_names_intern_in_order)
{
    enum { N = 20000 };
    size_t cap = (size_t)N * 40 + 32;
    char *text = malloc(cap);
    size_t u = (size_t)snprintf(text, cap, "id t flux\n");
    for (int i = 0; i < N; i++) /* each id twice, the second run in reverse */
        u += (size_t)snprintf(text + u, cap - u, "obj%d %d 1\n", i, i);
    for (int i = N - 1; i >= 0; i--)
        u += (size_t)snprintf(text + u, cap - u, "obj%d %d 2\n", i, i);
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(read_text(text, &spec, &t));
    cr_assert_eq(t.col[3].n_levels, N);
    for (int i = 0; i < N; i++) {
        char want[32];
        snprintf(want, sizeof want, "obj%d", i);
        cr_assert_str_eq(t.col[3].levels[i], want);
        cr_assert_eq(t.col[3].code[i], i);
        cr_assert_eq(t.col[3].code[2 * N - 1 - i], i);
    }
    sl_table_free(&t);
    free(text);
}

/* ---- round trip: every dialect writes and reads back bit for bit --------------- */

typedef struct dialect {
    const char *name, *sep;
    int header;    /* 0 none, 1 plain, 2 commented */
    int quote_ids; /* "..." around ids */
} dialect;

static const dialect dialects[] = {
    {"csv", ",", 1, 0},       {"csv quoted", ", ", 1, 1}, {"blank", " ", 1, 0},
    {"tab", "\t", 1, 0},      {"semicolon", ";", 1, 0},   {"bare blank", "  ", 0, 0},
    {"bare csv", ",", 0, 0},  {"commented", " ", 2, 0},
};

Test(table, round_trip_every_dialect)
{
    enum { N = 257 };
    double t[N], y[N], e[N];
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < N; i++) { /* values that stress %.17g: tiny, huge, negative */
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u = (double)(s >> 11) / 9007199254740992.0;
        t[i] = 2450000.0 + 3000.0 * u;
        y[i] = (u - 0.5) * pow(10.0, (double)(i % 41) - 20.0);
        e[i] = i % 7 ? 1e-3 + u : 5e-324 * (i + 1);
    }
    for (size_t d = 0; d < sizeof dialects / sizeof *dialects; d++) {
        const dialect *D = &dialects[d];
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (D->header)
            fprintf(f, "%stime%sflux%sflux_err%sid\n", D->header == 2 ? "# " : "", D->sep,
                    D->sep, D->sep);
        for (int i = 0; i < N; i++)
            fprintf(f, "%.17g%s%.17g%s%.17g%s%sobj %d%s\n", t[i], D->sep, y[i], D->sep, e[i],
                    D->sep, D->quote_ids ? "\"" : "", i % 5, D->quote_ids ? "\"" : "");
        fclose(f);
        if (!D->quote_ids) /* unquoted ids must not hold the separator: "obj 3" -> "obj_3" */
            for (char *c = strstr(text, "obj "); c; c = strstr(c, "obj "))
                c[3] = '_';
        sl_table_spec spec = spec4();
        sl_table tab;
        sl_status st = read_text(text, &spec, &tab);
        cr_assert_eq(st, SL_OK, "%s: %s", D->name, sl_last_error());
        cr_assert_eq(tab.n_rows, N, "%s", D->name);
        cr_assert_eq(tab.has_header, D->header != 0, "%s", D->name);
        for (int i = 0; i < N; i++) {
            cr_assert(slt_same_bits(tab.col[0].num[i], t[i]), "%s: t[%d]", D->name, i);
            cr_assert(slt_same_bits(tab.col[1].num[i], y[i]), "%s: y[%d]", D->name, i);
            cr_assert(slt_same_bits(tab.col[2].num[i], e[i]), "%s: e[%d]", D->name, i);
            char want[16];
            snprintf(want, sizeof want, "obj%c%d", D->quote_ids ? ' ' : '_', i % 5);
            cr_assert_str_eq(tab.col[3].levels[tab.col[3].code[i]], want, "%s", D->name);
        }
        sl_table_free(&tab);
        free(text);
    }
}

/* ---- columns in memory (sl_table_from_data) ------------------------------ */

Test(table, columns_in_memory_follow_the_header_rules)
{
    const double jd[] = {1, 2, 3}, flux[] = {10, 11, 12}, sap[] = {7, 8, 9}, e[] = {.1, .2, .3};
    const char *const tel[] = {"a", "b", "a"};
    /* sap_flux before flux in the data, flux first among the aliases */
    sl_data_column c[] = {{"SAP_FLUX", sap, NULL}, {"mjd", jd, NULL}, {"Flux", flux, NULL},
                          {"dy", e, NULL}, {"TEL", NULL, tel}};
    sl_data d = {.n_rows = 3, .cols = c, .n_cols = 5};
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(sl_table_from_data(&d, &spec, &t));
    cr_assert(t.in_memory && t.has_header);
    cr_assert_eq(t.n_rows, 3);
    cr_assert_eq(t.col[0].num[2], 3.0);
    cr_assert_eq(t.col[1].num[0], 10.0, "the alias of higher priority wins");
    cr_assert_eq(t.col[2].num[1], 0.2);
    cr_assert_eq(t.col[3].n_levels, 2);
    cr_assert_str_eq(t.col[3].levels[t.col[3].code[2]], "a");
    cr_assert_str_eq(t.path, "data");
    char at[128];
    sl_table_at(&t, 1, 1, at, sizeof at);
    cr_assert_str_eq(at, "data: column 'Flux', row 2");
    sl_table_free(&t);
    /* the user's name overrides, and numbers become names in a text column */
    const char *names[4] = {NULL, "sap_flux", NULL, "flux"};
    spec.names = names;
    SLT_OK(sl_table_from_data(&d, &spec, &t));
    cr_assert_eq(t.col[1].num[0], 7.0);
    cr_assert_str_eq(t.col[3].levels[t.col[3].code[1]], "11");
    sl_table_free(&t);
}

/* The user's picks (d->picks, columns = {...}) are resolved by the table
 * itself: a wanted column by its name or an alias, the same as
 * spec->names; an unknown wanted column, one picked twice, or an empty
 * name is refused, naming the pick. */
Test(table, picks_name_the_columns_to_take)
{
    const double jd[] = {1, 2, 3}, flux[] = {10, 11, 12}, sap[] = {7, 8, 9}, e[] = {.1, .2, .3};
    const char *const tel[] = {"a", "b", "a"};
    sl_data_column c[] = {{"SAP_FLUX", sap, NULL}, {"mjd", jd, NULL}, {"Flux", flux, NULL},
                          {"dy", e, NULL}, {"TEL", NULL, tel}};
    sl_data_pick picks[] = {{"FLUX", "sap_flux"}};
    sl_data d = {.n_rows = 3, .cols = c, .n_cols = 5, .picks = picks, .n_picks = 1};
    sl_table_spec spec = spec4();
    sl_table t;
    SLT_OK(sl_table_from_data(&d, &spec, &t));
    cr_assert_eq(t.col[1].num[0], 7.0, "the pick (by an alias of value) was not taken");
    sl_table_free(&t);
    picks[0] = (sl_data_pick){"speed", "Flux"};
    sl_clear_error();
    cr_assert_neq(sl_table_from_data(&d, &spec, &t), SL_OK);
    cr_assert(strstr(sl_last_error(), "data: columns.speed = \"Flux\": test rows has no column "
                                      "'speed': expected "), "%s", sl_last_error());
    sl_data_pick twice[] = {{"value", "Flux"}, {"flux", "sap_flux"}};
    d.picks = twice, d.n_picks = 2;
    sl_clear_error();
    cr_assert_neq(sl_table_from_data(&d, &spec, &t), SL_OK);
    cr_assert(strstr(sl_last_error(), "columns.flux = \"sap_flux\": the value column is already "
                                      "named \"Flux\""), "%s", sl_last_error());
    sl_data_pick empty[] = {{"value", ""}};
    d.picks = empty, d.n_picks = 1;
    sl_clear_error();
    cr_assert_neq(sl_table_from_data(&d, &spec, &t), SL_OK);
    cr_assert(strstr(sl_last_error(), "columns.value: expected a column name"), "%s",
              sl_last_error());
}

static void expect_data_error(const sl_data *d, const char *const *names, const char *want)
{
    sl_table_spec spec = spec4();
    spec.names = names;
    sl_table t;
    sl_clear_error();
    cr_assert_neq(sl_table_from_data(d, &spec, &t), SL_OK, "accepted; expected \"%s\"", want);
    cr_assert(strstr(sl_last_error(), want), "message \"%s\" lacks \"%s\"", sl_last_error(), want);
    cr_assert_eq(t.n_rows, 0);
    cr_assert_null(t.path, "a failed read left memory behind");
}

Test(table, columns_in_memory_errors_name_the_column)
{
    const double t3[] = {1, NAN, 3}, v3[] = {4, 5, 6};
    const char *const s3[] = {"x", "y", "z"};
    sl_data_column c[] = {{"t", t3, NULL}, {"vel", v3, NULL}};
    sl_data d = {.n_rows = 3, .cols = c, .n_cols = 2, .source = "my table"};
    expect_data_error(&d, NULL, "my table: column 't', row 2 = nan: expected a finite number");
    const double t3ok[] = {1, 2, 3};
    c[0].num = t3ok;
    c[1] = (sl_data_column){"flux", NULL, s3};
    expect_data_error(&d, NULL, "my table: column 'flux' holds text: expected numbers (the value "
                                "column)");
    c[1] = (sl_data_column){"speed", v3, NULL};
    expect_data_error(&d, NULL, "my table: the columns (\"t\", \"speed\") include no value column: "
                                "expected one of value, flux, pdcsap_flux");
    const char *names[4] = {NULL, "nope", NULL, NULL};
    expect_data_error(&d, names, "my table: columns.value = \"nope\": there is no such column "
                                 "(the columns: \"t\", \"speed\")");
    c[1] = (sl_data_column){"T", v3, NULL};
    expect_data_error(&d, NULL, "my table: two columns are named 'T'");
    c[1] = (sl_data_column){"v", NULL, NULL};
    expect_data_error(&d, NULL, "my table: column 'v' has no values");
    d.n_rows = 0;
    expect_data_error(&d, NULL, "my table: no rows");
    sl_data f = sl_data_file("/nonexistent/sl_table/x.txt");
    expect_data_error(&f, NULL, "/nonexistent/sl_table/x.txt: cannot open");
}
