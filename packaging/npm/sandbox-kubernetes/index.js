'use strict';
module.exports = require('./lib/api.js');
