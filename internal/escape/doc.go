// Package escape decodes the backslash escapes kproduce accepts in
// delimiters and output templates: \n \r \t \0 \\ and \xNN. Any other
// escape is an error, so a typo never silently becomes another byte. It
// also quotes values for error messages, clipped (QuoteClipped).
package escape
