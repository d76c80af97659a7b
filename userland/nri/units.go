// Package tgnri is tgroup's NRI plugin: it puts Kubernetes pods into
// TGroups as the container runtime (containerd 2.x, CRI-O) starts them.
package tgnri

import (
	"errors"
	"math"
	"math/big"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Max is the value of "max" (no limit), as in tgroup.limit and libtgroup.
const Max = math.MaxUint64

var (
	errSyntax = errors.New("not a size: a decimal number, optional fraction, optional k/M/G/T/P (x1000) or Ki/Mi/Gi/Ti/Pi (x1024), optional B and /s or ps, or max; or a Kubernetes quantity (1Gi, 500M, 2e9)")
	errRange  = errors.New("out of range (must be below 2^64-1 bytes/s)")
	errFrac   = errors.New("not a whole number of bytes")
)

// ParseSize reads a rate or size the way libtgroup's tgroup_parse_size()
// and tgctl do (docs/tgctl.md, "Units"): "max", or a decimal number with an
// optional fraction, an optional SI prefix k/K, M, G, T, P (powers of 1000)
// or binary prefix Ki, Mi, Gi, Ti, Pi (powers of 1024), then an optional
// "B" and an optional "/s" or "ps". The result must be a whole number of
// bytes and below 2^64-1. Exact (integer arithmetic). What that syntax
// does not read is tried as a Kubernetes quantity (apimachinery's
// resource.ParseQuantity: 2e9, 1E, 1Ei, 1500m ...), with the same rules
// for the result. The two agree where both read a value (k, M, G, T, P
// are powers of 1000, Ki ... Pi of 1024).
func ParseSize(s string) (uint64, error) {
	v, err := parseUnits(s)
	if err != errSyntax {
		return v, err
	}
	q, qerr := resource.ParseQuantity(s)
	// a digit first: no sign, and apimachinery reads "G" as 0
	if qerr != nil || s[0] < '0' || s[0] > '9' {
		return 0, errSyntax
	}
	d := q.AsDec() // unscaled * 10^-scale
	n := new(big.Int).Set(d.UnscaledBig())
	if sc := int64(d.Scale()); sc > 0 {
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(sc), nil)
		if new(big.Int).Mod(n, div).Sign() != 0 {
			return 0, errFrac
		}
		n.Div(n, div)
	} else if sc < 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(-sc), nil))
	}
	if !n.IsUint64() || n.Uint64() == Max || (q.Format == resource.BinarySI && n.Uint64() == math.MaxInt64) {
		return 0, errRange // apimachinery caps binary quantities at 2^63-1
	}
	return n.Uint64(), nil
}

// parseUnits is tgctl's syntax alone.
func parseUnits(s string) (uint64, error) {
	if s == "max" {
		return Max, nil
	}
	p := 0
	for p < len(s) && s[p] >= '0' && s[p] <= '9' {
		p++
	}
	if p == 0 {
		return 0, errSyntax
	}
	whole, ok := new(big.Int).SetString(s[:p], 10)
	if !ok {
		return 0, errSyntax
	}
	frac, fdiv := big.NewInt(0), big.NewInt(1)
	if p < len(s) && s[p] == '.' {
		p++
		q := p
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
		if p == q || p-q > 18 {
			return 0, errSyntax
		}
		frac.SetString(s[q:p], 10)
		fdiv.Exp(big.NewInt(10), big.NewInt(int64(p-q)), nil)
	}
	mult := big.NewInt(1)
	if p < len(s) {
		if pow := strings.IndexByte("kMGTP", s[p]) + 1; pow > 0 || s[p] == 'K' {
			if s[p] == 'K' {
				pow = 1
			}
			p++
			base := int64(1000)
			if p < len(s) && s[p] == 'i' {
				base = 1024
				p++
			}
			mult.Exp(big.NewInt(base), big.NewInt(int64(pow)), nil)
		}
	}
	if p < len(s) && s[p] == 'B' {
		p++
	}
	if rest := s[p:]; rest == "/s" || rest == "ps" {
		p += 2
	}
	if p != len(s) {
		return 0, errSyntax
	}
	v := new(big.Int).Mul(whole, mult)
	f := new(big.Int).Mul(frac, mult)
	if new(big.Int).Mod(f, fdiv).Sign() != 0 {
		return 0, errFrac
	}
	v.Add(v, f.Div(f, fdiv))
	if !v.IsUint64() || v.Uint64() == Max {
		return 0, errRange
	}
	return v.Uint64(), nil
}
