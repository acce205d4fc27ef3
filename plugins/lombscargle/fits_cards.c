/* FITS headers checked card by card before cfitsio sees them (fits_cards.h).
 * Each card is checked on its own (bytes, keyword, value indicator, typed
 * values), then against the HDU's mandatory keywords; the END card gives
 * the data unit's start and the mandatory values its size, which is how
 * the next HDU is found. Card-level checks set a message without a place;
 * check_header adds the file, HDU, card and byte offset. */
#define _GNU_SOURCE
#include "fits_cards.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

enum { FC_BLOCK = 2880, FC_CARD = 80, FC_KEY = 8, FC_MAX_NAXIS = 999, FC_NAME = 16 };

typedef struct fc_file {
    const char *path;
    FILE *f;
    int64_t size;
} fc_file;

/* One HDU's header as far as it has been read. */
typedef struct fc_hdu {
    int num;            /* 1-based, as cfitsio counts */
    int64_t card;       /* 1-based number of the card being checked */
    int bitpix, naxis;
    int64_t naxis1;     /* 0 with GROUPS = T: random groups (primary only) */
    int64_t rest;       /* NAXIS2 x ... x NAXISn, meaningful unless rest_over */
    int rest_over;      /* that product overflowed (and has no zero factor) */
    int64_t pcount, gcount;
    int groups;
    int64_t seen_pcount, seen_gcount, seen_groups; /* card numbers, 0 until seen */
} fc_hdu;

/* ---- text for messages ---- */

/* n bytes of s for a message: trailing blanks dropped, bytes outside
 * 0x20-0x7E (and the backslash) escaped as \xNN, cut with "..." to fit. */
static const char *show(const char *s, size_t n, char *out, size_t cap)
{
    while (n > 0 && s[n - 1] == ' ')
        n--;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        int plain = b >= 0x20 && b <= 0x7e && b != '\\';
        if (o + (plain ? 1 : 4) + (i + 1 < n ? 3 : 0) >= cap) { /* this, "..." and NUL */
            memcpy(out + o, "...", 4);
            return out;
        }
        if (plain)
            out[o++] = (char)b;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", b);
    }
    out[o] = '\0';
    return out;
}

/* The keyword field (columns 1-8, printable), trailing blanks dropped. */
static const char *key_text(const char *c, char out[FC_KEY + 1])
{
    int n = FC_KEY;
    while (n > 0 && c[n - 1] == ' ')
        n--;
    memcpy(out, c, (size_t)n);
    out[n] = '\0';
    return out;
}

/* The value field (columns 11-80) up to a comment, for a message. */
static const char *value_text(const char *c, char *out, size_t cap)
{
    const char *v = c + 10 + strspn(c + 10, " "), *end = c + FC_CARD;
    const char *slash = *v == '\'' ? NULL : memchr(v, '/', (size_t)(end - v));
    return show(v, (size_t)((slash ? slash : end) - v), out, cap);
}

/* ---- one card on its own ---- */

static int key_is(const char *c, const char *name)
{
    size_t n = strlen(name);
    return !memcmp(c, name, n) && strspn(c + n, " ") >= FC_KEY - n;
}

/* name followed by an index of 1 to 3 digits (TTYPE1, NAXIS12) */
static int key_is_indexed(const char *c, const char *name)
{
    size_t n = strlen(name), d = strspn(c + n, "0123456789");
    return !memcmp(c, name, n) && d >= 1 && n + d <= FC_KEY &&
           strspn(c + n + d, " ") >= FC_KEY - n - d;
}

static int is_value_card(const char *c) { return c[8] == '=' && c[9] == ' '; }

/* Keywords whose columns 9-80 are free text: commentary (COMMENT, HISTORY,
 * blank), long-string continuations and ESO's HIERARCH cards, whose value
 * indicator comes later (cfitsio reads both conventions). */
static int is_free_text(const char *c)
{
    return key_is(c, "COMMENT") || key_is(c, "HISTORY") || key_is(c, "") ||
           key_is(c, "CONTINUE") || key_is(c, "HIERARCH");
}

static sl_status check_bytes(const char *c)
{
    for (int i = 0; i < FC_CARD; i++) {
        unsigned char b = (unsigned char)c[i];
        if (b < 0x20 || b > 0x7e) {
            char t[64];
            return sl_fail(SL_ERR_IO, "byte 0x%02X in column %d ('%s'): expected printable "
                           "ASCII (0x20-0x7E) in every column", b, i + 1,
                           show(c, FC_CARD, t, sizeof t));
        }
    }
    return SL_OK;
}

static int key_char(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
}

/* Columns 1-8: [A-Z0-9_-] from column 1, then blanks; or all blank. */
static sl_status check_keyword(const char *c)
{
    char k[FC_KEY + 1];
    int i = 0, j;
    while (i < FC_KEY && key_char(c[i]))
        i++;
    for (j = i; j < FC_KEY && c[j] == ' '; j++)
        ;
    if (j == FC_KEY)
        return SL_OK;
    if (i == 0 && c[0] == ' ')
        return sl_fail(SL_ERR_IO, "keyword '%s' is not left-justified: expected [A-Z0-9_-] "
                       "from column 1", key_text(c, k));
    if (j > i)
        return sl_fail(SL_ERR_IO, "keyword '%s' has a blank in column %d inside it: expected "
                       "[A-Z0-9_-] from column 1, then only blanks to column 8",
                       key_text(c, k), i + 1);
    return sl_fail(SL_ERR_IO, "keyword '%s' has '%c' in column %d: expected [A-Z0-9_-] "
                   "(upper-case letters, digits, '-', '_')", key_text(c, k), c[i], i + 1);
}

/* A keyword with a value has "= " in columns 9-10; one without has no '='
 * in columns 9-80 (cfitsio would take any '=' there as a misplaced value
 * indicator and read what follows as the value). END has only blanks. */
static sl_status check_indicator(const char *c)
{
    char k[FC_KEY + 1], t[40];
    if (key_is(c, "END")) {
        if (strspn(c + FC_KEY, " ") == FC_CARD - FC_KEY)
            return SL_OK;
        return sl_fail(SL_ERR_IO, "END card has text in columns 9-80 ('%s'): expected blanks",
                       show(c + FC_KEY, FC_CARD - FC_KEY, t, sizeof t));
    }
    if (is_free_text(c) || is_value_card(c))
        return SL_OK;
    const char *eq = memchr(c + FC_KEY, '=', FC_CARD - FC_KEY);
    if (!eq)
        return SL_OK;
    return sl_fail(SL_ERR_IO, "keyword '%s' has '=' in column %d ('%s'): expected the value "
                   "indicator '= ' in columns 9-10", key_text(c, k), (int)(eq - c) + 1,
                   show(c + FC_KEY, FC_CARD - FC_KEY, t, sizeof t));
}

/* Length of the quoted string at v[0] == '\'' (a quote inside is doubled),
 * 0 when it has no closing quote within n bytes. */
static size_t string_len(const char *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] == '\'') {
            if (i + 1 < n && v[i + 1] == '\'')
                i++;
            else
                return i + 1;
        }
    return 0;
}

/* After a value: blanks, then nothing or a '/' comment. */
static int value_ends(const char *v, size_t n)
{
    size_t b = strspn(v, " ");
    return b >= n || v[b] == '/';
}

/* The value field (columns 11-80) holds one quoted string. */
static int is_string_value(const char *c)
{
    const char *v = c + 10;
    size_t b = strspn(v, " ");
    if (b >= 70 || v[b] != '\'')
        return 0;
    size_t len = string_len(v + b, 70 - b);
    return len && value_ends(v + b + len, 70 - b - len);
}

/* Column names and formats are strings (Standard 7.3.1); cfitsio 4.2.0
 * copies an unquoted TTYPEn of 70 characters into a 70-byte field. */
static sl_status check_typed_value(const char *c)
{
    if (!is_value_card(c) || !(key_is_indexed(c, "TTYPE") || key_is_indexed(c, "TFORM")))
        return SL_OK;
    if (is_string_value(c))
        return SL_OK;
    char k[FC_KEY + 1], t[48];
    return sl_fail(SL_ERR_IO, "%s = %s: expected a quoted string ('...') with its closing "
                   "quote", key_text(c, k), value_text(c, t, sizeof t));
}

/* ---- values of the mandatory keywords ---- */

/* An integer value field: blanks, an optional sign, digits, then what
 * value_ends allows. 0: read; 1: not an integer; 2: beyond 64 bits. */
static int parse_int(const char *c, int64_t *out)
{
    const char *v = c + 10, *end = c + FC_CARD;
    v += strspn(v, " ");
    int neg = v < end && *v == '-';
    if (v < end && (*v == '-' || *v == '+'))
        v++;
    if (v >= end || *v < '0' || *v > '9')
        return 1;
    uint64_t x = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    int over = 0;
    for (; v < end && *v >= '0' && *v <= '9'; v++) {
        over |= x > (lim - (uint64_t)(*v - '0')) / 10;
        if (!over)
            x = 10 * x + (uint64_t)(*v - '0');
    }
    if (!value_ends(v, (size_t)(end - v)))
        return 1;
    if (over)
        return 2;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    return 0;
}

/* The integer value of mandatory keyword `name`, in [lo, hi]. */
static sl_status int_in(const char *c, const char *name, int64_t lo, int64_t hi, int64_t *out)
{
    char t[48];
    int r = parse_int(c, out);
    if (!r && *out >= lo && *out <= hi)
        return SL_OK;
    if (hi == INT64_MAX)
        return sl_fail(SL_ERR_IO, "%s = %s: expected an integer >= %lld%s", name,
                       value_text(c, t, sizeof t), (long long)lo,
                       r == 2 ? " that fits in 64 bits" : "");
    return sl_fail(SL_ERR_IO, "%s = %s: expected an integer from %lld to %lld", name,
                   value_text(c, t, sizeof t), (long long)lo, (long long)hi);
}

/* The logical value T or F of a value field; 0 when it is neither. */
static char logical_value(const char *c)
{
    const char *v = c + 10;
    size_t b = strspn(v, " ");
    if (b < 70 && (v[b] == 'T' || v[b] == 'F') && value_ends(v + b + 1, 69 - b))
        return v[b];
    return 0;
}

static sl_status check_first(const fc_hdu *h, const char *c)
{
    char t[48];
    if (h->num > 1) {
        if (is_string_value(c))
            return SL_OK;
        return sl_fail(SL_ERR_IO, "XTENSION = %s: expected the extension's type as a quoted "
                       "string ('BINTABLE', 'TABLE', 'IMAGE', ...)", value_text(c, t, sizeof t));
    }
    char l = logical_value(c);
    if (l == 'T')
        return SL_OK;
    if (l == 'F')
        return sl_fail(SL_ERR_IO, "SIMPLE = F: the file says it does not conform to the FITS "
                       "standard: expected T");
    return sl_fail(SL_ERR_IO, "SIMPLE = %s: expected T", value_text(c, t, sizeof t));
}

static sl_status check_bitpix(fc_hdu *h, const char *c)
{
    int64_t b = 0;
    char t[48];
    if (!parse_int(c, &b) && (b == 8 || b == 16 || b == 32 || b == 64 || b == -32 || b == -64)) {
        h->bitpix = (int)b;
        return SL_OK;
    }
    return sl_fail(SL_ERR_IO, "BITPIX = %s: expected one of 8, 16, 32, 64, -32, -64",
                   value_text(c, t, sizeof t));
}

/* NAXISn: NAXIS1 kept apart (0 may mean random groups), the others
 * multiplied; a zero factor makes an overflow of the others harmless. */
static sl_status check_axis(fc_hdu *h, const char *c, const char *name, int64_t axis)
{
    int64_t n = 0;
    sl_status s = int_in(c, name, 0, INT64_MAX, &n);
    if (s)
        return s;
    if (axis == 1) {
        h->naxis1 = n;
    } else if (n == 0 || h->rest == 0) {
        h->rest = 0, h->rest_over = 0;
    } else if (h->rest_over || n > INT64_MAX / h->rest) {
        h->rest_over = 1;
    } else {
        h->rest *= n;
    }
    return SL_OK;
}

/* ---- mandatory keywords in order ---- */

/* The keyword card k must hold, or NULL past the mandatory ones: SIMPLE or
 * XTENSION, BITPIX, NAXIS, NAXIS1..NAXISn and for an extension PCOUNT,
 * GCOUNT (NAXIS is read before card 4 is asked about). */
static const char *mandatory(const fc_hdu *h, int64_t k, char buf[FC_NAME])
{
    if (k <= 3)
        return k == 1 ? (h->num == 1 ? "SIMPLE" : "XTENSION") : k == 2 ? "BITPIX" : "NAXIS";
    if (k <= 3 + h->naxis) {
        snprintf(buf, FC_NAME, "NAXIS%d", (int)(k - 3));
        return buf;
    }
    if (h->num > 1 && k <= 5 + h->naxis)
        return k == 4 + h->naxis ? "PCOUNT" : "GCOUNT";
    return NULL;
}

static sl_status check_value(fc_hdu *h, const char *c, const char *name)
{
    int64_t v = 0;
    sl_status s = SL_OK;
    if (h->card == 1)
        return check_first(h, c);
    if (h->card == 2)
        return check_bitpix(h, c);
    if (h->card == 3) {
        s = int_in(c, name, 0, FC_MAX_NAXIS, &v);
        h->naxis = (int)v;
        return s;
    }
    if (h->card <= 3 + h->naxis)
        return check_axis(h, c, name, h->card - 3);
    s = int_in(c, name, 0, INT64_MAX, &v);
    *(h->card == 4 + h->naxis ? &h->pcount : &h->gcount) = v;
    return s;
}

/* The card number where a mandatory keyword of this HDU stands, else 0. */
static int64_t mandatory_card(const fc_hdu *h, const char *c)
{
    char buf[FC_NAME];
    const char *m;
    for (int64_t k = 1; (m = mandatory(h, k, buf)); k++)
        if (key_is(c, m))
            return k;
    return 0;
}

static sl_status check_mandatory(fc_hdu *h, const char *c)
{
    char buf[FC_NAME], k[FC_KEY + 1];
    const char *m = mandatory(h, h->card, buf);
    if (!m) {
        int64_t first = mandatory_card(h, c);
        return first ? sl_fail(SL_ERR_IO, "keyword '%s' again (first in card %lld): expected "
                               "it once", key_text(c, k), (long long)first)
                     : SL_OK;
    }
    if (!key_is(c, m))
        return sl_fail(SL_ERR_IO, "keyword '%s' where %s is expected: the header starts with "
                       "%s, BITPIX, NAXIS, NAXIS1..NAXISn%s, in that order", key_text(c, k), m,
                       h->num == 1 ? "SIMPLE" : "XTENSION", h->num == 1 ? "" : ", PCOUNT, GCOUNT");
    if (!is_value_card(c))
        return sl_fail(SL_ERR_IO, "%s has no value: expected '= ' in columns 9-10", m);
    return check_value(h, c, m);
}

static sl_status once(const fc_hdu *h, const char *c, int64_t *seen)
{
    char k[FC_KEY + 1];
    if (*seen)
        return sl_fail(SL_ERR_IO, "keyword '%s' again (first in card %lld): expected it once",
                       key_text(c, k), (long long)*seen);
    *seen = h->card;
    return SL_OK;
}

/* In the primary header PCOUNT and GCOUNT are optional (random groups);
 * cfitsio counts them in the data size wherever they stand, so they are
 * checked, and allowed once, as the mandatory ones are. */
static sl_status check_primary_counts(fc_hdu *h, const char *c)
{
    int is_p = key_is(c, "PCOUNT");
    if (h->num != 1 || !(is_p || key_is(c, "GCOUNT")))
        return SL_OK;
    sl_status s = once(h, c, is_p ? &h->seen_pcount : &h->seen_gcount);
    if (!s && !is_value_card(c))
        s = sl_fail(SL_ERR_IO, "%s has no value: expected '= ' in columns 9-10",
                    is_p ? "PCOUNT" : "GCOUNT");
    if (!s)
        s = int_in(c, is_p ? "PCOUNT" : "GCOUNT", 0, INT64_MAX, is_p ? &h->pcount : &h->gcount);
    return s;
}

/* GROUPS = T with NAXIS1 = 0 makes random groups, whose size cfitsio
 * computes in any HDU it reads as an image; the standard has them in the
 * primary HDU only, and there only is it allowed here. */
static sl_status check_groups(fc_hdu *h, const char *c)
{
    if (!key_is(c, "GROUPS"))
        return SL_OK;
    sl_status s = once(h, c, &h->seen_groups);
    int t = is_value_card(c) && logical_value(c) == 'T';
    if (!s && t && h->num > 1)
        s = sl_fail(SL_ERR_IO, "GROUPS = T in an extension: expected random groups in the "
                    "primary HDU only");
    h->groups = t;
    return s;
}

static sl_status check_card(fc_hdu *h, const char *c)
{
    sl_status s = check_bytes(c);
    if (!s)
        s = check_keyword(c);
    if (!s)
        s = check_indicator(c);
    if (!s)
        s = check_mandatory(h, c);
    if (!s)
        s = check_primary_counts(h, c);
    if (!s)
        s = check_groups(h, c);
    if (!s)
        s = check_typed_value(c);
    return s;
}

/* ---- HDUs ---- */

/* Reads the header from byte `at` to its END card; *data is where the
 * data unit starts (the next block). */
static sl_status check_header(const fc_file *F, fc_hdu *h, int64_t at, int64_t *data)
{
    char c[FC_CARD + 1];
    c[FC_CARD] = '\0'; /* bounds the string functions on a card */
    if (fseeko(F->f, (off_t)at, SEEK_SET) != 0)
        return sl_fail(SL_ERR_IO, "%s: cannot seek to byte %lld: %s", F->path, (long long)at,
                       strerror(errno));
    for (h->card = 1; at + FC_CARD <= F->size; h->card++, at += FC_CARD) {
        if (fread(c, 1, FC_CARD, F->f) != FC_CARD)
            return sl_fail(SL_ERR_IO, "%s: cannot read byte %lld: %s", F->path, (long long)at,
                           ferror(F->f) ? strerror(errno) : "unexpected end of file");
        sl_status s = check_card(h, c);
        if (s)
            return sl_fail_context(s, "%s (FITS HDU %d, card %lld at byte %lld)", F->path,
                                   h->num, (long long)h->card, (long long)at);
        if (key_is(c, "END")) {
            *data = (at + FC_CARD + FC_BLOCK - 1) / FC_BLOCK * FC_BLOCK;
            return SL_OK;
        }
    }
    return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): no END card in the %lld cards to the end of "
                   "the file: expected the header to end with an END card", F->path, h->num,
                   (long long)h->card - 1);
}

/* |BITPIX|/8 x GCOUNT x (PCOUNT + NAXIS1 x ... x NAXISn), as cfitsio
 * computes it (NAXIS1 counts as 1 in random groups); -1 past 64 bits. */
static int64_t data_bytes(const fc_hdu *h)
{
    int64_t first = h->groups && h->naxis1 == 0 ? 1 : h->naxis1, npix = 0, sum, b;
    if (h->naxis > 0 && first > 0 && h->rest > 0) {
        if (h->rest_over || first > INT64_MAX / h->rest)
            return -1;
        npix = first * h->rest;
    }
    if (npix > INT64_MAX - h->pcount)
        return -1;
    sum = npix + h->pcount;
    b = (h->bitpix < 0 ? -h->bitpix : h->bitpix) / 8;
    if (h->gcount && sum > INT64_MAX / h->gcount / b)
        return -1;
    return sum * h->gcount * b;
}

/* One HDU from byte *at; *at becomes the start of the next. */
static sl_status check_hdu(const fc_file *F, int num, int64_t *at)
{
    fc_hdu h = {.num = num, .rest = 1, .gcount = 1};
    int64_t data = 0;
    sl_status s = check_header(F, &h, *at, &data);
    if (s)
        return s;
    int64_t n = data_bytes(&h);
    if (n < 0)
        return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): the data unit's size, |BITPIX|/8 x GCOUNT "
                       "x (PCOUNT + NAXIS1 x ... x NAXISn) with BITPIX %d, GCOUNT %lld, PCOUNT "
                       "%lld, NAXIS %d, is beyond 64 bits: damaged header", F->path, num,
                       h.bitpix, (long long)h.gcount, (long long)h.pcount, h.naxis);
    if (n > F->size - data)
        return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): the data unit needs %lld bytes from byte "
                       "%lld, but the file ends at byte %lld: truncated or damaged", F->path, num,
                       (long long)n, (long long)data, (long long)F->size);
    *at = data + (n + FC_BLOCK - 1) / FC_BLOCK * FC_BLOCK;
    return SL_OK;
}

/* Whether the block at byte `at` starts a header cfitsio would read:
 * XTENSION (or SIMPLE, which it also takes as a header start). */
static int starts_header(const fc_file *F, int64_t at)
{
    char c[FC_KEY];
    return fseeko(F->f, (off_t)at, SEEK_SET) == 0 && fread(c, 1, FC_KEY, F->f) == FC_KEY &&
           (!memcmp(c, "XTENSION", FC_KEY) || !memcmp(c, "SIMPLE", 6));
}

static sl_status open_blocks(fc_file *F)
{
    struct stat sb;
    if (!(F->f = fopen(F->path, "rb")) || fstat(fileno(F->f), &sb) != 0)
        return sl_fail(SL_ERR_IO, "%s: cannot be read: %s", F->path, strerror(errno));
    F->size = (int64_t)sb.st_size;
    if (F->size == 0)
        return sl_fail(SL_ERR_IO, "%s: empty: expected a FITS file of 2880-byte blocks",
                       F->path);
    if (F->size % FC_BLOCK)
        return sl_fail(SL_ERR_IO, "%s: %lld bytes is not a whole number of 2880-byte FITS "
                       "blocks (%lld blocks and %lld bytes): truncated or damaged", F->path,
                       (long long)F->size, (long long)(F->size / FC_BLOCK),
                       (long long)(F->size % FC_BLOCK));
    return SL_OK;
}

sl_status sl_fits_check(const char *path)
{
    fc_file F = {.path = path};
    sl_status s = open_blocks(&F);
    int64_t at = 0;
    for (int num = 1; !s && at < F.size && (num == 1 || starts_header(&F, at)); num++)
        s = check_hdu(&F, num, &at);
    if (F.f)
        fclose(F.f);
    return s;
}
