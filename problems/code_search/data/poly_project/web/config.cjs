// CommonJS configuration loaded by the build.
const path = require('path');

module.exports = {
  outDir: path.join(__dirname, 'dist'),
  // TODO: read the port from the environment
  port: 3000,
  verbose: false,
};
