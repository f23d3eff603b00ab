const {
  winston,
  formats: { prettyPrint },
} = require('@strapi/logger');

/** STRAPI_LOG_LEVEL quiets the log (tests and benchmarks use `warn`); winston drops what is below it. */
const level = process.env.STRAPI_LOG_LEVEL || 'http';

module.exports = {
  updates: { enabled: false },
  transports: [
    new winston.transports.Console({
      level,
      format: winston.format.combine(prettyPrint({ timestamps: 'YYYY-MM-DD hh:mm:ss.SSS' })),
    }),
  ],
};
