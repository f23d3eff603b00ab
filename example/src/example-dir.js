const fs = require('fs');
const path = require('path');

/**
 * The example's folder: the nearest one above with a package.json. The config runs from config/
 * when the tests load the sources and from dist/config/ after `strapi build`, so a path counted
 * up from __dirname would land one folder apart.
 */
function exampleDir(dir = __dirname) {
  return fs.existsSync(path.join(dir, 'package.json')) ? dir : exampleDir(path.dirname(dir));
}

module.exports = { exampleDir };
