/* FITS headers checked card by card before cfitsio reads them (issue 8,
 * plugins/lombscargle/fits_cards.c). One test per rule builds a small file
 * card by card (a primary header without data and a binary table of TIME
 * and FLUX, 3 rows) with one card spoiled and checks the message: file,
 * HDU, card, byte offset, the text and what was expected. Then the input
 * that made cfitsio 4.2.0 abort (a seed of the fuzz_ls_fits corpus), and
 * files written by cfitsio itself (an image primary with data, extra HDUs,
 * a heap, random groups), which must read as before, with a spoiled card
 * in their last HDU still found (so the data units were skipped by the
 * right sizes). */
#include <fitsio.h>
#include <unistd.h>

#include "ls_test.h"
#include "slt_files.h"

enum { MAXC = 40, CARD = 80, BLOCK = 2880 };

/* A header: cards as given (blank-padded to 80 bytes when shorter). */
typedef struct hdr {
    const char *card[MAXC];
    size_t len[MAXC]; /* 0: strlen */
    int n;
} hdr;

static const char *const primary_cards[] = {
    "SIMPLE  =                    T / conforms to FITS",
    "BITPIX  =                    8",
    "NAXIS   =                    0",
    "EXTEND  =                    T",
    "END",
};

static const char *const table_cards[] = {
    "XTENSION= 'BINTABLE'           / binary table extension",
    "BITPIX  =                    8",
    "NAXIS   =                    2",
    "NAXIS1  =                   16 / bytes per row",
    "NAXIS2  =                    3 / rows",
    "PCOUNT  =                    0",
    "GCOUNT  =                    1",
    "TFIELDS =                    2",
    "TTYPE1  = 'TIME    '",
    "TFORM1  = 'D       '",
    "TTYPE2  = 'FLUX    '",
    "TFORM2  = 'D       '",
    "END",
};

/* the table's rows, and the byte offset of card k of HDU 2 */
static const double rows_t[3] = {1.5, 2.5, 3.5}, rows_y[3] = {10.0, 20.0, 15.0};
#define AT2(k) (BLOCK + ((k)-1) * CARD)

static void hdr_from(hdr *h, const char *const *cards, int n)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < n; i++)
        h->card[i] = cards[i];
    h->n = n;
}

static void hdr_primary(hdr *h) { hdr_from(h, primary_cards, 5); }
static void hdr_table(hdr *h) { hdr_from(h, table_cards, 13); }

/* Card k (1-based) becomes `text`, of `len` bytes (0: strlen). */
static void hdr_set(hdr *h, int k, const char *text, size_t len)
{
    cr_assert(k >= 1 && k <= h->n);
    h->card[k - 1] = text;
    h->len[k - 1] = len;
}

/* `text` goes in before card k. */
static void hdr_insert(hdr *h, int k, const char *text)
{
    cr_assert(h->n < MAXC && k >= 1 && k <= h->n + 1);
    memmove(h->card + k, h->card + k - 1, (size_t)(h->n - k + 1) * sizeof *h->card);
    memmove(h->len + k, h->len + k - 1, (size_t)(h->n - k + 1) * sizeof *h->len);
    h->card[k - 1] = text;
    h->len[k - 1] = 0;
    h->n++;
}

static void put_header(FILE *f, const hdr *h)
{
    char c[CARD];
    for (int i = 0; i < h->n; i++) {
        size_t n = h->len[i] ? h->len[i] : strlen(h->card[i]);
        cr_assert(n <= CARD, "card %d is %zu bytes", i + 1, n);
        memset(c, ' ', CARD);
        memcpy(c, h->card[i], n);
        fwrite(c, 1, CARD, f);
    }
    for (int i = h->n * CARD % BLOCK; i && i < BLOCK; i++)
        fputc(' ', f);
}

static void put_double(FILE *f, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    for (int b = 7; b >= 0; b--) /* FITS is big-endian */
        fputc((int)(u >> (8 * b)) & 0xff, f);
}

/* The primary header, then (when t is given) the table with its rows. */
static void write_file(const char *path, const hdr *p, const hdr *t)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    put_header(f, p);
    if (t) {
        put_header(f, t);
        for (int r = 0; r < 3; r++)
            put_double(f, rows_t[r]), put_double(f, rows_y[r]);
        for (int i = 48; i < BLOCK; i++)
            fputc(0, f);
    }
    fclose(f);
}

typedef struct fx {
    slt_ls p;
    char dir[64], path[128];
} fx;

static void fx_open(fx *x)
{
    slt_ls_load(&x->p);
    slt_tmpdir(x->dir, sizeof x->dir, "/tmp/sl_ls_fits");
    snprintf(x->path, sizeof x->path, "%s/bad.fits", x->dir);
}

static void fx_close(fx *x)
{
    slt_rmtree(x->dir);
    slt_ls_unload(&x->p);
}

/* The file is refused, through read() and read_fits(), with a message
 * holding every one of the NULL-terminated parts. */
static void expect_refused(fx *x, const char *const *parts)
{
    for (int way = 0; way < 2; way++) {
        sl_ls_set *s = NULL;
        sl_status st = way ? x->p.ls->read_fits(x->path, NULL, 0, &s)
                           : x->p.ls->read(x->path, 0, &s);
        cr_assert_neq(st, SL_OK, "%s accepted by %s", x->path, way ? "read_fits" : "read");
        cr_assert_null(s);
        const char *e = sl_last_error();
        for (const char *const *q = parts; *q; q++)
            cr_assert(strstr(e, *q), "message lacks \"%s\": %s", *q, e);
    }
}

/* A table HDU with one card replaced, refused with parts. */
static void expect_table_card_refused(int k, const char *text, size_t len,
                                      const char *const *parts)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_set(&t, k, text, len);
    write_file(x.path, &p, &t);
    expect_refused(&x, parts);
    fx_close(&x);
}

static void expect_rows(const sl_ls_set *s, const double *t, const double *y, int64_t n)
{
    cr_assert_eq(s->data.n_obj, 1);
    cr_assert_eq(s->data.offset[1], n);
    for (int64_t i = 0; i < n; i++) {
        cr_assert_eq(s->t[i], t[i], "t[%lld] = %.17g, wrote %.17g", (long long)i, s->t[i], t[i]);
        cr_assert_eq(s->y[i], y[i], "y[%lld] = %.17g, wrote %.17g", (long long)i, s->y[i], y[i]);
    }
}

/* The file the rule tests spoil, unspoiled, reads: so each refusal below
 * is the spoiled card's doing. */
Test(ls_fits_cards, the_unspoiled_file_reads)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    write_file(x.path, &p, &t);
    sl_ls_set *s = NULL;
    SLT_OK(x.p.ls->read(x.path, 0, &s));
    expect_rows(s, rows_t, rows_y, 3);
    x.p.ls->set_free(s);
    fx_close(&x);
}

Test(ls_fits_cards, file_of_partial_blocks)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    write_file(x.path, &p, &t);
    cr_assert_eq(truncate(x.path, 3 * BLOCK - 100), 0);
    expect_refused(&x, (const char *[]){"bad.fits: 8540 bytes is not a whole number of "
                                        "2880-byte FITS blocks (2 blocks and 2780 bytes)",
                                        NULL});
    fx_close(&x);
}

Test(ls_fits_cards, non_printable_byte)
{
    expect_table_card_refused(9, "TTYPE1  = 'TI\tME'", 0,
                              (const char *[]){"bad.fits (FITS HDU 2, card 9 at byte 3520): byte "
                                               "0x09 in column 14 ('TTYPE1  = 'TI\\x09ME'')",
                                               "expected printable ASCII (0x20-0x7E)", NULL});
}

Test(ls_fits_cards, non_printable_byte_nul)
{
    /* a NUL inside a card: the card is 80 bytes, not a C string */
    expect_table_card_refused(11, "TTYPE2  = 'FL\0X'", 16,
                              (const char *[]){"(FITS HDU 2, card 11 at byte 3680): byte 0x00 in "
                                               "column 14 ('TTYPE2  = 'FL\\x00X'')", NULL});
}

Test(ls_fits_cards, keyword_not_left_justified)
{
    expect_table_card_refused(9, "  TTYPE1= 'TIME'", 0,
                              (const char *[]){"bad.fits (FITS HDU 2, card 9 at byte 3520): "
                                               "keyword '  TTYPE1' is not left-justified: "
                                               "expected [A-Z0-9_-] from column 1", NULL});
}

Test(ls_fits_cards, keyword_lower_case)
{
    expect_table_card_refused(11, "ttype2  = 'FLUX'", 0,
                              (const char *[]){"(FITS HDU 2, card 11 at byte 3680): keyword "
                                               "'ttype2' has 't' in column 1: expected "
                                               "[A-Z0-9_-]", NULL});
}

Test(ls_fits_cards, keyword_with_inner_blank)
{
    expect_table_card_refused(11, "TT YPE2 = 'FLUX'", 0,
                              (const char *[]){"(FITS HDU 2, card 11 at byte 3680): keyword "
                                               "'TT YPE2' has a blank in column 3 inside it",
                                               NULL});
}

Test(ls_fits_cards, value_indicator_not_in_columns_9_10)
{
    expect_table_card_refused(9, "TTYPE1  ='TIME'", 0,
                              (const char *[]){"(FITS HDU 2, card 9 at byte 3520): keyword "
                                               "'TTYPE1' has '=' in column 9 ('='TIME'')",
                                               "expected the value indicator '= ' in columns 9-10",
                                               NULL});
    /* cfitsio takes a later '=' as the indicator and reads what follows */
    expect_table_card_refused(9, "TTYPE1   = 'TIME'", 0,
                              (const char *[]){"keyword 'TTYPE1' has '=' in column 10", NULL});
}

/* COMMENT, HISTORY, blank keywords (and CONTINUE, HIERARCH) have free
 * text in columns 9-80, '=' included; a keyword without '=' has no value. */
Test(ls_fits_cards, commentary_cards_are_free_text)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_insert(&t, 13, "COMMENT = not a value, = anywhere, 'unbalanced quote");
    hdr_insert(&t, 13, "HISTORY a=b; TTYPE1  = 'x'");
    hdr_insert(&t, 13, "        = also free text");
    hdr_insert(&t, 13, "HIERARCH ESO DET CHIP ID = 'ccd1' / ESO convention");
    hdr_insert(&t, 13, "NOVALUE  this keyword has no value");
    hdr_insert(&p, 5, "COMMENT   primary commentary");
    write_file(x.path, &p, &t);
    sl_ls_set *s = NULL;
    SLT_OK(x.p.ls->read(x.path, 0, &s));
    expect_rows(s, rows_t, rows_y, 3);
    x.p.ls->set_free(s);
    fx_close(&x);
}

Test(ls_fits_cards, header_without_end)
{
    fx x;
    fx_open(&x);
    hdr p;
    hdr_primary(&p);
    hdr_set(&p, 5, "", 0); /* END blanked: the file ends in blank cards */
    write_file(x.path, &p, NULL);
    expect_refused(&x, (const char *[]){"bad.fits (FITS HDU 1): no END card in the 36 cards to "
                                        "the end of the file: expected the header to end with "
                                        "an END card", NULL});
    fx_close(&x);
}

Test(ls_fits_cards, end_card_with_text)
{
    expect_table_card_refused(13, "END     here", 0,
                              (const char *[]){"(FITS HDU 2, card 13 at byte 3840): END card has "
                                               "text in columns 9-80 ('here'): expected blanks",
                                               NULL});
}

Test(ls_fits_cards, mandatory_keywords_out_of_order)
{
    expect_table_card_refused(2, "NAXIS   =                    2", 0,
                              (const char *[]){"(FITS HDU 2, card 2 at byte 2960): keyword 'NAXIS' "
                                               "where BITPIX is expected: the header starts with "
                                               "XTENSION, BITPIX, NAXIS, NAXIS1..NAXISn, PCOUNT, "
                                               "GCOUNT, in that order", NULL});
    expect_table_card_refused(6, "TFIELDS =                    2", 0,
                              (const char *[]){"(FITS HDU 2, card 6 at byte 3280): keyword "
                                               "'TFIELDS' where PCOUNT is expected", NULL});
}

Test(ls_fits_cards, first_keyword)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_set(&p, 1, "SIMPLX  =                    T", 0);
    write_file(x.path, &p, &t);
    sl_ls_set *s = NULL;
    cr_assert_neq(x.p.ls->read_fits(x.path, NULL, 0, &s), SL_OK);
    cr_assert(strstr(sl_last_error(), "(FITS HDU 1, card 1 at byte 0): keyword 'SIMPLX' where "
                     "SIMPLE is expected"), "%s", sl_last_error());
    fx_close(&x);
    expect_table_card_refused(1, "SIMPLE  =                    T", 0,
                              (const char *[]){"(FITS HDU 2, card 1 at byte 2880): keyword "
                                               "'SIMPLE' where XTENSION is expected", NULL});
}

Test(ls_fits_cards, mandatory_keyword_without_value)
{
    expect_table_card_refused(2, "BITPIX                       8", 0,
                              (const char *[]){"(FITS HDU 2, card 2 at byte 2960): BITPIX has no "
                                               "value: expected '= ' in columns 9-10", NULL});
}

Test(ls_fits_cards, mandatory_values_in_range)
{
    static const struct {
        int k;
        const char *card, *msg;
    } cases[] = {
        {2, "BITPIX  =                   12",
         "card 2 at byte 2960): BITPIX = 12: expected one of 8, 16, 32, 64, -32, -64"},
        {3, "NAXIS   =                 1000",
         "card 3 at byte 3040): NAXIS = 1000: expected an integer from 0 to 999"},
        {4, "NAXIS1  =                 16.0",
         "card 4 at byte 3120): NAXIS1 = 16.0: expected an integer >= 0"},
        {5, "NAXIS2  =                   -3 / rows",
         "card 5 at byte 3200): NAXIS2 = -3: expected an integer >= 0"},
        {5, "NAXIS2  = 99999999999999999999",
         "NAXIS2 = 99999999999999999999: expected an integer >= 0 that fits in 64 bits"},
        {6, "PCOUNT  =                  1 2",
         "card 6 at byte 3280): PCOUNT = 1 2: expected an integer >= 0"},
        {7, "GCOUNT  =                    X",
         "card 7 at byte 3360): GCOUNT = X: expected an integer >= 0"},
        {1, "XTENSION= BINTABLE",
         "card 1 at byte 2880): XTENSION = BINTABLE: expected the extension's type as a quoted "
         "string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_table_card_refused(cases[i].k, cases[i].card,
                                  0, (const char *[]){"(FITS HDU 2, ", cases[i].msg, NULL});
}

Test(ls_fits_cards, simple_must_be_true)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_set(&p, 1, "SIMPLE  =                    F", 0);
    write_file(x.path, &p, &t);
    expect_refused(&x, (const char *[]){"(FITS HDU 1, card 1 at byte 0): SIMPLE = F: the file "
                                        "says it does not conform to the FITS standard: expected "
                                        "T", NULL});
    fx_close(&x);
}

Test(ls_fits_cards, mandatory_keyword_repeated)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_insert(&t, 13, "NAXIS2  =                 1000");
    write_file(x.path, &p, &t);
    expect_refused(&x, (const char *[]){"(FITS HDU 2, card 13 at byte 3840): keyword 'NAXIS2' "
                                        "again (first in card 5): expected it once", NULL});
    /* in the primary header PCOUNT and GCOUNT are optional, but count */
    hdr_table(&t);
    hdr_insert(&p, 5, "GCOUNT  =                    1");
    hdr_insert(&p, 5, "GCOUNT  =                    2");
    write_file(x.path, &p, &t);
    expect_refused(&x, (const char *[]){"(FITS HDU 1, card 6 at byte 400): keyword 'GCOUNT' "
                                        "again (first in card 5)", NULL});
    fx_close(&x);
}

Test(ls_fits_cards, groups_only_in_the_primary)
{
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_insert(&t, 13, "GROUPS  =                    T");
    write_file(x.path, &p, &t);
    expect_refused(&x, (const char *[]){"(FITS HDU 2, card 13 at byte 3840): GROUPS = T in an "
                                        "extension: expected random groups in the primary HDU "
                                        "only", NULL});
    fx_close(&x);
}

Test(ls_fits_cards, data_past_the_end_of_the_file)
{
    expect_table_card_refused(5, "NAXIS2  =                 1000", 0,
                              (const char *[]){"bad.fits (FITS HDU 2): the data unit needs 16000 "
                                               "bytes from byte 5760, but the file ends at byte "
                                               "8640: truncated or damaged", NULL});
    /* the primary's data (PCOUNT counts there too, as cfitsio counts it) */
    fx x;
    fx_open(&x);
    hdr p, t;
    hdr_primary(&p);
    hdr_table(&t);
    hdr_insert(&p, 5, "PCOUNT  =                 5761");
    write_file(x.path, &p, &t);
    expect_refused(&x, (const char *[]){"bad.fits (FITS HDU 1): the data unit needs 5761 bytes "
                                        "from byte 2880, but the file ends at byte 8640", NULL});
    fx_close(&x);
}

Test(ls_fits_cards, data_size_beyond_64_bits)
{
    expect_table_card_refused(4, "NAXIS1  =  9223372036854775807", 0,
                              (const char *[]){"bad.fits (FITS HDU 2): the data unit's size, "
                                               "|BITPIX|/8 x GCOUNT x (PCOUNT + NAXIS1 x ... "
                                               "x NAXISn) with BITPIX 8, GCOUNT 1, PCOUNT 0, "
                                               "NAXIS 2, is beyond 64 bits", NULL});
}

/* cfitsio 4.2.0 copies an unquoted TTYPEn value of 70 characters into a
 * 70-byte field: a fortified build aborts (ffgtbp). Every rule above holds
 * for that card; the column keywords' values must be strings. */
Test(ls_fits_cards, column_names_are_quoted_strings)
{
    static char card[81];
    memcpy(card, "TTYPE1  = ", 10);
    memset(card + 10, 'A', 70);
    expect_table_card_refused(9, card, 80,
                              (const char *[]){"(FITS HDU 2, card 9 at byte 3520): TTYPE1 = AAAA",
                                               "expected a quoted string ('...') with its closing "
                                               "quote", NULL});
    expect_table_card_refused(10, "TFORM1  = 'D", 0,
                              (const char *[]){"(FITS HDU 2, card 10 at byte 3600): TFORM1 = 'D: "
                                               "expected a quoted string", NULL});
}

/* ---- the input fuzzing found ---- */

static void copy_known(const char *dst, size_t pad_to)
{
    char src[512];
    snprintf(src, sizeof src, "%s/tests/fuzz/corpus/fuzz_ls_fits/"
             "regress_cfitsio_ffgtbp_abort.fits", SL_SOURCE_DIR);
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    cr_assert(in && out, "%s or %s", src, dst);
    size_t n = 0;
    for (int ch; (ch = fgetc(in)) != EOF; n++)
        fputc(ch, out);
    cr_assert_eq(n, 5915, "%s is %zu bytes", src, n);
    for (; n < pad_to; n++)
        fputc(0, out);
    fclose(in), fclose(out);
}

/* As found (5915 bytes): the size says it first. */
Test(ls_fits_cards, known_cfitsio_abort_input)
{
    fx x;
    fx_open(&x);
    copy_known(x.path, 0);
    expect_refused(&x, (const char *[]){"bad.fits: 5915 bytes is not a whole number of "
                                        "2880-byte FITS blocks (2 blocks and 155 bytes)", NULL});
    fx_close(&x);
}

/* Padded to whole blocks it still aborts cfitsio; now its header is what
 * is refused, at the first bad card. */
Test(ls_fits_cards, known_cfitsio_abort_input_padded)
{
    fx x;
    fx_open(&x);
    copy_known(x.path, 3 * BLOCK);
    expect_refused(&x, (const char *[]){"bad.fits (FITS HDU 2, card 9 at byte 3520): byte 0x84 "
                                        "in column 10 ('TTYPE1  =\\x84\\x84", NULL});
    fx_close(&x);
}

/* ---- files written by cfitsio still read ---- */

/* cfitsio calls share one status, checked after each */
static int cf_st;
#define CF(call)                                                                                \
    do {                                                                                        \
        (void)(call);                                                                           \
        cr_assert_eq(cf_st, 0, "%s: cfitsio status %d", #call, cf_st);                          \
    } while (0)

static int heap_len(int row) { return row % 7 + 1; }

/* A binary table of TIME, FLUX and, with a heap, a variable-length column
 * (its arrays live in the heap, so PCOUNT > 0). */
static void cf_table(fitsfile *f, int n, const double *t, const double *y, int heap)
{
    char *ttype[3] = {"TIME", "FLUX", "SAMPLES"}, *tform[3] = {"1D", "1D", "1PD"};
    CF(fits_create_tbl(f, BINARY_TBL, n, heap ? 3 : 2, ttype, tform, NULL, "LC", &cf_st));
    CF(fits_write_col(f, TDOUBLE, 1, 1, 1, n, (void *)t, &cf_st));
    CF(fits_write_col(f, TDOUBLE, 2, 1, 1, n, (void *)y, &cf_st));
    double v[7];
    for (int r = 1; heap && r <= n; r++) {
        for (int i = 0; i < 7; i++)
            v[i] = r * 100 + i;
        CF(fits_write_col(f, TDOUBLE, 3, r, 1, heap_len(r), v, &cf_st));
    }
}

static void cf_image(fitsfile *f, int bitpix, long nx, long ny)
{
    long naxes[2] = {nx, ny};
    double v[4096];
    for (long i = 0; i < nx * ny; i++)
        v[i] = (double)(i % 113);
    CF(fits_create_img(f, bitpix, 2, naxes, &cf_st));
    CF(fits_write_img(f, TDOUBLE, 1, nx * ny, v, &cf_st));
}

/* Overwrites the card of the last HDU that starts with `key` (10 bytes). */
static void spoil_last(const char *path, const char *key, const char *with)
{
    char *all = NULL;
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f), last = -1;
    all = malloc((size_t)n);
    fseek(f, 0, SEEK_SET);
    cr_assert_eq(fread(all, 1, (size_t)n, f), (size_t)n);
    for (long at = 0; at + CARD <= n; at += CARD)
        if (!memcmp(all + at, key, 10))
            last = at;
    cr_assert(last >= 0, "no %s card in %s", key, path);
    fseek(f, last, SEEK_SET);
    fwrite(with, 1, strlen(with), f);
    fclose(f);
    free(all);
}

static double lc_t[2][50], lc_y[2][50];

static void fill_curves(void)
{
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 50; i++)
            lc_t[c][i] = 100.0 * c + 0.37 * i, lc_y[c][i] = sin(0.9 * i + c) + c;
}

/* An image primary with data, a table with a heap, an image extension, and
 * the second light curve in HDU 4. */
static void write_cfitsio_file(const char *path)
{
    fitsfile *f;
    char name[300];
    snprintf(name, sizeof name, "!%s", path);
    cf_st = 0;
    CF(fits_create_file(&f, name, &cf_st));
    cf_image(f, SHORT_IMG, 37, 29);
    cf_table(f, 50, lc_t[0], lc_y[0], 1);
    cf_image(f, FLOAT_IMG, 61, 45);
    cf_table(f, 50, lc_t[1], lc_y[1], 0);
    CF(fits_close_file(f, &cf_st));
}

Test(ls_fits_cards, cfitsio_files_with_data_heap_and_extra_hdus_read)
{
    fx x;
    fx_open(&x);
    fill_curves();
    write_cfitsio_file(x.path);
    /* the heap is there */
    fitsfile *f;
    long pcount = 0;
    int type = 0;
    cf_st = 0;
    CF(fits_open_file(&f, x.path, READONLY, &cf_st));
    CF(fits_movabs_hdu(f, 2, &type, &cf_st));
    CF(fits_read_key(f, TLONG, "PCOUNT", &pcount, NULL, &cf_st));
    CF(fits_close_file(f, &cf_st));
    long heap = 0;
    for (int r = 1; r <= 50; r++)
        heap += 8 * heap_len(r);
    cr_assert_eq(pcount, heap, "PCOUNT %ld, expected %ld", pcount, heap);

    sl_ls_set *s = NULL;
    SLT_OK(x.p.ls->read(x.path, 0, &s)); /* the first table, HDU 2 */
    expect_rows(s, lc_t[0], lc_y[0], 50);
    x.p.ls->set_free(s);
    SLT_OK(x.p.ls->read_fits(x.path, &(sl_ls_columns){.hdu = 4}, 0, &s));
    expect_rows(s, lc_t[1], lc_y[1], 50);
    x.p.ls->set_free(s);

    /* HDU 4 is reached through the sizes of HDUs 1-3: a bad card there is
     * found and numbered right */
    spoil_last(x.path, "TTYPE2  = ", "TTYPE2  ='FLUX'  ");
    expect_refused(&x, (const char *[]){"(FITS HDU 4, card ", "keyword 'TTYPE2' has '=' in "
                                        "column 9", NULL});
    fx_close(&x);
}

/* Random groups (NAXIS1 = 0, GROUPS = T): the data is GCOUNT groups of
 * PCOUNT parameters and NAXIS2 x ... values. */
Test(ls_fits_cards, cfitsio_random_groups_primary)
{
    fx x;
    fx_open(&x);
    fill_curves();
    fitsfile *f;
    char name[300];
    snprintf(name, sizeof name, "!%s", x.path);
    long naxes[2] = {0, 1000};
    cf_st = 0;
    CF(fits_create_file(&f, name, &cf_st));
    CF(fits_write_grphdr(f, 1, FLOAT_IMG, 2, naxes, 2, 3, 1, &cf_st));
    float g[1002] = {0};
    for (int grp = 1; grp <= 3; grp++)
        CF(fits_write_grppar_flt(f, grp, 1, 2, g, &cf_st));
    cf_table(f, 50, lc_t[0], lc_y[0], 0);
    CF(fits_close_file(f, &cf_st));

    sl_ls_set *s = NULL;
    SLT_OK(x.p.ls->read(x.path, 0, &s));
    expect_rows(s, lc_t[0], lc_y[0], 50);
    x.p.ls->set_free(s);
    /* 12024 bytes of groups: taken as NAXIS1 x NAXIS2 = 0 bytes, the
     * table's header would not be checked */
    spoil_last(x.path, "TTYPE1  = ", "  TTYPE1= 'TIME'");
    expect_refused(&x, (const char *[]){"(FITS HDU 2, card ", "keyword '  TTYPE1' is not "
                                        "left-justified", NULL});
    fx_close(&x);
}
