const {
  winston,
  formats: { prettyPrint, levelFilter },
} = require('@strapi/logger');

const level = process.env.STRAPI_LOG_LEVEL || 'http';

module.exports = {
  updates: { enabled: false },
  transports: [
    new winston.transports.Console({
      level,
      format: winston.format.combine(levelFilter(level), prettyPrint({ timestamps: 'YYYY-MM-DD hh:mm:ss.SSS' })),
    }),
  ],
};
