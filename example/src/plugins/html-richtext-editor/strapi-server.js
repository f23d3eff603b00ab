// The stand-in does nothing: the publish bridge only looks at which plugins are installed.
module.exports = {};
