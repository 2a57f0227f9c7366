// The bundler (and jest's raw loader) turn an imported SVG into its source text.
declare module '*.svg' {
  const svgstr: string;
  export default svgstr;
}

// Only used to read package.json (see version.ts); the bundler resolves it.
declare function require(id: string): unknown;
